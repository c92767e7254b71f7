"""``TabletopClient``: the whole tabletop REST API over ``requests``.

Every method returns the server's JSON document, typed (:mod:`tabletop_client.types`),
or raises a :class:`~tabletop_client.errors.TabletopError` subclass carrying the
problem code. Reads (GET) are retried after a network error or a 503 (the server
says when, ``Retry-After``); creating a game and taking a seat are not retried,
because a lost answer cannot be told from a lost request there. Commands go through
:class:`~tabletop_client.seat.Seat`, which makes their retries safe with an
``Idempotency-Key``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from typing import Any, cast
from urllib.parse import quote

import requests

from tabletop_client.errors import RateLimited, TabletopError, Unavailable, error_for
from tabletop_client.seat import Seat
from tabletop_client.sse import messages
from tabletop_client.types import (
    Catalogue,
    CatalogueGame,
    Envelope,
    EventPage,
    GameList,
    Joined,
    Legal,
    PlayerTotals,
    Verification,
    View,
)

FINAL_EVENTS = frozenset({"SeedRevealed", "GameExpired"})
"""Nothing follows these: a finished game's seed reveal, an open game's expiry."""

RECONNECT_IDLE_S = 1.0
"""The pause before reconnecting to a stream that ended without news (the server
advises ``retry: 1000``)."""

NETWORK_ERRORS = (
    requests.ConnectionError,
    requests.Timeout,
    requests.exceptions.ChunkedEncodingError,
)
"""What a retry may cure: no connection, no answer in time, an answer cut off."""


class TabletopClient:
    """One server. ``retries`` bounds the retries of one call after network errors
    and 503s (with ``backoff_s`` doubling, or the server's ``Retry-After`` up to
    ``max_wait_s``); ``timeout`` is each request's connect and read timeout."""

    def __init__(
        self,
        base_url: str,
        *,
        session: requests.Session | None = None,
        timeout: float = 30.0,
        retries: int = 3,
        backoff_s: float = 0.25,
        max_wait_s: float = 10.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.session = session or requests.Session()
        self.timeout = timeout
        self.retries = retries
        self.backoff_s = backoff_s
        self.max_wait_s = max_wait_s

    # -- transport ---------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
        retry: bool = True,
        stream: bool = False,
        timeout: float | tuple[float, float] | None = None,
    ) -> requests.Response:
        """One call; the answer if it is 2xx or 304, else the typed error.

        With ``retry``, a network error or a 503 is retried up to ``retries`` times
        with the same headers (so a command's ``Idempotency-Key`` goes again); the
        last failure is raised (``requests.RequestException`` or ``Unavailable``).
        """
        sent = dict(headers or {})
        if token is not None:
            sent["Authorization"] = f"Bearer {token}"
        clean = {k: v for k, v in (params or {}).items() if v is not None}
        attempt = 0
        while True:
            try:
                response = self.session.request(
                    method,
                    self.base_url + path,
                    params=clean,
                    json=body,
                    headers=sent,
                    stream=stream,
                    timeout=timeout or self.timeout,
                )
            except NETWORK_ERRORS:
                if not retry or attempt >= self.retries:
                    raise
                self._pause(attempt, None)
                attempt += 1
                continue
            if response.status_code < 400:
                return response
            error = error_for(response)
            response.close()
            if retry and isinstance(error, Unavailable) and attempt < self.retries:
                self._pause(attempt, error.retry_after)
                attempt += 1
                continue
            raise error

    def _pause(self, attempt: int, retry_after: float | None) -> None:
        wait = retry_after if retry_after is not None else self.backoff_s * 2**attempt
        time.sleep(min(wait, self.max_wait_s))

    def get_json(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs).json()

    # -- catalogue and lobby -----------------------------------------------------

    def catalogue(self) -> Catalogue:
        """Every game: options with defaults and limits, command formats, bot levels."""
        return cast(Catalogue, self.get_json("/v1/catalogue"))

    def catalogue_game(self, name: str) -> CatalogueGame:
        """One game's entry; ``NotFound`` (``unknown_game``) for an unknown name."""
        return cast(CatalogueGame, self.get_json(f"/v1/catalogue/{name}"))

    def create_game(
        self,
        game: str,
        players: int,
        *,
        options: Mapping[str, int | bool | str] | None = None,
        bots: Mapping[int, str] | None = None,
    ) -> View:
        """A new game with ``players`` seats, ``bots`` mapping seats to bot levels
        (e.g. ``{1: "greedy"}``). Returns the spectator's view (``game_id`` in it).
        Not retried: a lost answer would otherwise create a second game."""
        body: dict[str, Any] = {"game": game, "players": players}
        if options:
            body["options"] = dict(options)
        if bots:
            body["bots"] = {str(seat): level for seat, level in bots.items()}
        return cast(View, self.request("POST", "/v1/games", body=body, retry=False).json())

    def list_games(
        self,
        *,
        game: str | None = None,
        status: str | None = None,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> GameList:
        """One page of games, newest first (eventually consistent: a new game shows
        within moments). Pass ``next_cursor`` as ``cursor`` for the next page."""
        params = {"game": game, "status": status, "limit": limit, "cursor": cursor}
        return cast(GameList, self.get_json("/v1/games", params=params))

    def join(self, game_id: str, name: str, *, seat: int | None = None) -> Seat:
        """Take ``seat`` (or the lowest free one) as ``name``. The returned
        :class:`Seat` holds the token, which the server never shows again: keep it
        (:meth:`Seat.save`). Not retried (a retry after a lost answer would find
        the seat taken by the lost request)."""
        body: dict[str, Any] = {"name": name}
        if seat is not None:
            body["seat"] = seat
        joined = cast(
            Joined,
            self.request("POST", f"/v1/games/{game_id}/seats", body=body, retry=False).json(),
        )
        return Seat(
            self,
            joined["game_id"],
            joined["seat"],
            joined["token"],
            name,
            joined["view"]["version"],
        )

    def seat(self, game_id: str, seat: int, token: str, name: str = "") -> Seat:
        """A seat taken earlier (its token kept), to play on after a restart."""
        return Seat(self, game_id, seat, token, name, 0)

    def player(self, name: str) -> PlayerTotals:
        """A player's totals over finished games (zeros for an unknown name)."""
        return cast(PlayerTotals, self.get_json(f"/v1/players/{quote(name, safe='')}"))

    # -- play --------------------------------------------------------------------

    def view(
        self,
        game_id: str,
        *,
        token: str | None = None,
        at: int | None = None,
        after: int | None = None,
        wait: float | None = None,
    ) -> View:
        """The caller's view (a seat token shows that seat's hidden facts). ``at``
        replays an earlier version; ``wait`` long-polls until the version exceeds
        ``after`` and returns the view then (or the current one when the wait ends)."""
        params = {"at": at, "after": after, "wait": wait}
        timeout = None if wait is None else (self.timeout, self.timeout + wait)
        return cast(
            View, self.get_json(f"/v1/games/{game_id}", token=token, params=params, timeout=timeout)
        )

    def legal(self, game_id: str, *, token: str | None = None) -> Legal:
        """Who must act, and every command the caller's seat may send now."""
        return cast(Legal, self.get_json(f"/v1/games/{game_id}/legal", token=token))

    # -- history -----------------------------------------------------------------

    def events(
        self, game_id: str, *, after: int = 0, limit: int | None = None, token: str | None = None
    ) -> EventPage:
        """Versions ``after+1 ..``, at most ``limit``, redacted for the caller."""
        params = {"after": after, "limit": limit}
        return cast(
            EventPage, self.get_json(f"/v1/games/{game_id}/events", token=token, params=params)
        )

    def all_events(
        self, game_id: str, *, after: int = 0, token: str | None = None
    ) -> Iterator[Envelope]:
        """Every event after ``after`` up to the head, page by page."""
        cursor: int | None = after
        while cursor is not None:
            page = self.events(game_id, after=cursor, limit=500, token=token)
            yield from page["events"]
            cursor = page["next_after"]

    def stream(
        self,
        game_id: str,
        *,
        token: str | None = None,
        after: int = 0,
        until_end: bool = True,
        read_timeout: float = 60.0,
    ) -> Iterator[Envelope]:
        """The game's events after ``after``, live, each exactly once and in order.

        Reconnects with ``Last-Event-ID`` whenever the connection drops or the server
        ends the stream (it does after ``sse_max_s``); after a network error or a 429
        with backoff or ``Retry-After`` (up to ``retries`` failures in a row, then the
        error is raised).
        Duplicates are skipped and a gap (which the server never leaves) is filled
        from the events pages, so versions run ``after+1, after+2, ...`` without a
        hole. Ends after the game's final event (``SeedRevealed``, or ``GameExpired``)
        when ``until_end``; otherwise runs until the caller stops iterating.
        ``read_timeout`` must exceed the server's heartbeat interval.
        """
        last = after
        failures = 0
        while True:
            before = last
            headers = {"Last-Event-ID": str(last)} if last else {}
            try:
                response = self.request(
                    "GET",
                    f"/v1/games/{game_id}/events/stream",
                    token=token,
                    params={"after": 0} if not last else None,
                    headers=headers,
                    stream=True,
                    timeout=(self.timeout, read_timeout),
                )
                with response:
                    for message in messages(response.iter_content(chunk_size=None)):
                        envelope = cast(Envelope, json.loads(message.data))
                        version = envelope["version"]
                        if version <= last:
                            continue  # already delivered before a reconnect
                        if version > last + 1:
                            for missing in self.all_events(game_id, after=last, token=token):
                                if last < missing["version"] < version:
                                    yield missing
                                    last = missing["version"]
                        yield envelope
                        last = version
                        failures = 0
                        if until_end and envelope["type"] in FINAL_EVENTS:
                            return
            except NETWORK_ERRORS:
                if failures >= self.retries:
                    raise
                self._pause(failures, None)
                failures += 1
                continue
            except RateLimited as limited:
                # `too_many_streams` right after a drop: the server may not have
                # noticed yet that the old connection is gone. Wait as it says.
                if failures >= self.retries:
                    raise
                self._pause(failures, limited.retry_after)
                failures += 1
                continue
            # The server closed the stream (its time bound): go on where we are --
            # after its advised `retry:` pause if the stream brought nothing, so a
            # server that keeps closing at once is not hammered.
            if last == before:
                time.sleep(RECONNECT_IDLE_S)

    # -- audit -------------------------------------------------------------------

    def export(self, game_id: str, *, token: str | None = None) -> tuple[str, bool]:
        """The history as JSON Lines, and whether it is complete (a finished game,
        or the admin token) rather than redacted for the caller."""
        response = self.request("GET", f"/v1/games/{game_id}/export", token=token)
        return response.text, response.headers.get("Tabletop-Export") == "complete"

    def verification(self, game_id: str) -> Verification:
        """The audit of a finished game (hash chain, seed, every random outcome,
        every event re-run, scores). ``Conflict`` (``game_not_finished``) before the end."""
        return cast(Verification, self.get_json(f"/v1/games/{game_id}/verification"))


__all__ = ["FINAL_EVENTS", "TabletopClient", "TabletopError"]
