"""``Seat``: one taken seat -- its token, and the version its commands act on.

A command must name the version it was decided on (``If-Match``). The seat keeps
the last version it learned from its own calls (join, view, legal, command, a
refused stale command), so ``seat.legal()`` then ``seat.command(...)`` sends the
version of that legal list. Events read from the stream do not move it: a command
decided on an older view must be refused as stale, not slipped in under a newer
version.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from tabletop_client.errors import StaleVersion
from tabletop_client.types import (
    Command,
    Envelope,
    EventPage,
    Invite,
    Joined,
    Legal,
    Outcome,
    Rematched,
    View,
)

if TYPE_CHECKING:
    from tabletop_client.client import TabletopClient


class Seat:
    """A seat of one game, acting with its token through ``client``."""

    def __init__(
        self, client: TabletopClient, game_id: str, seat: int, token: str, name: str, version: int
    ) -> None:
        self.client = client
        self.game_id = game_id
        self.seat = seat
        self.token = token
        self.name = name
        self.version = version
        self.invite: str | None = None
        """The game's invite code when this seat's :meth:`rematch` created an
        invite-only rematch (shown that once), else None."""

    def __repr__(self) -> str:  # never the token: reprs end up in logs
        return f"Seat(game_id={self.game_id!r}, seat={self.seat}, name={self.name!r}, version={self.version})"

    # -- reading -------------------------------------------------------------------

    def view(self, *, after: int | None = None, wait: float | None = None) -> View:
        """This seat's view (its hidden facts included); long-polls with ``wait``."""
        view = self.client.view(self.game_id, token=self.token, after=after, wait=wait)
        self.version = view["version"]
        return view

    def legal(self) -> Legal:
        """Who must act and every command this seat may send now; a command from
        this list sent next acts on its version."""
        legal = self.client.legal(self.game_id, token=self.token)
        self.version = legal["version"]
        return legal

    def events(self, *, after: int = 0, limit: int | None = None) -> EventPage:
        return self.client.events(self.game_id, after=after, limit=limit, token=self.token)

    def stream(self, *, after: int = 0, until_end: bool = True) -> Iterator[Envelope]:
        """The events as this seat may see them, live and resumable (see
        :meth:`TabletopClient.stream`)."""
        return self.client.stream(self.game_id, token=self.token, after=after, until_end=until_end)

    # -- acting --------------------------------------------------------------------

    def command(
        self,
        command: Command,
        *,
        version: int | None = None,
        idempotency_key: str | None = None,
        refresh_on_stale: bool = False,
    ) -> Outcome:
        """Send ``command`` as decided on ``version`` (default: the seat's last known).

        A fresh ``Idempotency-Key`` (unless given) goes with it, and every retry after
        a network error or a 503 sends the same key, so the command is written at
        most once and a retry gets the first answer. A stale version raises
        :class:`StaleVersion` (``current_version``; the seat now knows it). With
        ``refresh_on_stale`` the seat instead fetches the legal list at the current
        version and sends the command again if it is still legal there (else the
        ``StaleVersion`` is raised). Rule violations raise ``RuleRefused``.
        """
        acted_on = self.version if version is None else version
        key = idempotency_key or f"tt-client-{uuid.uuid4().hex}"
        try:
            outcome = cast(
                Outcome,
                self.client.request(
                    "POST",
                    f"/v1/games/{self.game_id}/commands",
                    token=self.token,
                    body={"command": command},
                    headers={"If-Match": f'"{acted_on}"', "Idempotency-Key": key},
                ).json(),
            )
        except StaleVersion as stale:
            self.version = max(self.version, stale.current_version)
            if refresh_on_stale and command in self.legal()["commands"]:
                return self.command(command)
            raise
        self.version = outcome["version"]
        return outcome

    def resign(self, *, attempts: int = 3) -> Outcome:
        """Give the running game up, on this seat's turn or not (``{"kind": "resign"}``):
        Schlitzohr plays on without the seat, Abluxxen ends; the seat does not win.

        A resignation does not depend on the position, so a stale version is not the
        caller's problem: it is sent again at the version the refusal named, up to
        ``attempts`` times in all (one ``Idempotency-Key`` for all of them, so it is
        written at most once). ``RuleRefused`` ``seat_out`` once the seat has left,
        ``game_over`` after the end, ``game_not_started`` before the start."""
        key = f"tt-client-{uuid.uuid4().hex}"
        for attempt in range(attempts):
            try:
                return self.command({"kind": "resign"}, idempotency_key=key)
            except StaleVersion:
                if attempt == attempts - 1:
                    raise
        raise ValueError("attempts must be at least 1")

    def leave(self) -> View:
        """Give the seat up before the game starts (``RuleRefused`` after)."""
        response = self.client.request(
            "DELETE", f"/v1/games/{self.game_id}/seats/{self.seat}", token=self.token, retry=False
        )
        return cast(View, response.json())

    def renew_invite(self) -> str:
        """A new invite code for this invite-only game, before it starts; the old code
        seats nobody any more (``RuleRefused`` ``not_invite_only`` for another game,
        ``game_already_started`` after the start). Shown once: not retried."""
        response = self.client.request(
            "POST", f"/v1/games/{self.game_id}/invite", token=self.token, retry=False
        )
        return str(cast(Invite, response.json())["invite"])

    def rematch(self) -> Seat:
        """This seat again, in the rematch of this finished game: the one another seat
        asked for already, else a new game like this one (the same game, options, bots,
        clock and invitation rule). Its other players find it with
        :meth:`~tabletop_client.Client.rematch_of` and take their seats with their own
        ``rematch()``. ``Conflict`` ``game_not_finished`` before the end; ``RuleRefused``
        ``seat_taken`` if someone else sat there meanwhile. The new seat's token is shown
        once: not retried after a network error. The rematch's invite code, when this
        call created an invite-only rematch, is the new seat's :attr:`invite`."""
        response = self.client.request(
            "POST", f"/v1/games/{self.game_id}/rematch", token=self.token, retry=False
        )
        rematched = cast(Rematched, response.json())
        seat = self.client._seat(cast(Joined, rematched))
        seat.invite = rematched.get("invite")
        return seat

    # -- keeping the token ---------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        return {
            "base_url": self.client.base_url,
            "game_id": self.game_id,
            "seat": self.seat,
            "token": self.token,
            "name": self.name,
        }

    def save(self, path: str) -> None:
        """Write the seat (token included) to ``path``, readable by its owner only
        (created with mode 0600, replaced atomically)."""
        os.makedirs(os.path.dirname(os.path.abspath(path)), mode=0o700, exist_ok=True)
        tmp = f"{path}.tmp-{os.getpid()}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump(self.to_json(), out)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str, client: TabletopClient | None = None) -> Seat:
        """A seat saved by :meth:`save`, on ``client`` or a new client for its server."""
        with open(path) as source:
            data = json.load(source)
        if client is None:
            from tabletop_client.client import TabletopClient

            client = TabletopClient(data["base_url"])
        return cls(
            client, data["game_id"], int(data["seat"]), data["token"], data.get("name", ""), 0
        )
