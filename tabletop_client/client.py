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

from collections.abc import Iterator, Mapping
from typing import Any, cast
from urllib.parse import quote

from tabletop_client.errors import StaleVersion, TabletopError
from tabletop_client.seat import Seat
from tabletop_client.stream import FINAL_EVENTS, follow
from tabletop_client.transport import Transport
from tabletop_client.types import (
    Catalogue,
    CatalogueGame,
    ClockSettings,
    Envelope,
    EventPage,
    GameList,
    Joined,
    Leaderboard,
    Legal,
    LegalCompact,
    MyAccount,
    MyGames,
    PlayerTotals,
    RatingHistory,
    Registered,
    RematchLink,
    StreamTicket,
    Verification,
    View,
)

JOIN_RACES = 5
"""How many times :meth:`TabletopClient.join` tries when others change the table at the
same moment (each lost race wrote nothing)."""


class TabletopClient(Transport):
    """The API of one server (``base_url``); see :class:`Transport` for timeouts and
    retries."""

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
        clock: ClockSettings | None = None,
        invite_only: bool = False,
    ) -> View:
        """A new game with ``players`` seats, ``bots`` mapping seats to bot levels
        (e.g. ``{1: "greedy"}``). Returns the spectator's view (``game_id`` in it).
        ``clock``: a turn clock for the people's seats (``RuleRefused``
        ``invalid_clock`` for a bad one; see docs/api.md, "Turn clocks").
        ``invite_only``: only people given the game's invite code may take a seat; the
        view's ``invite`` holds it, this once -- pass it to :meth:`join`.
        Not retried: a lost answer would otherwise create a second game."""
        body: dict[str, Any] = {"game": game, "players": players}
        if options:
            body["options"] = dict(options)
        if bots:
            body["bots"] = {str(seat): level for seat, level in bots.items()}
        if clock is not None:
            body["clock"] = dict(clock)
        if invite_only:
            body["invite_only"] = True
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

    def join(
        self,
        game_id: str,
        name: str | None = None,
        *,
        seat: int | None = None,
        player_key: str | None = None,
        invite: str | None = None,
    ) -> Seat:
        """Take ``seat`` (or the lowest free one) as the guest ``name``, or with a
        ``player_key`` under the account's name; ``invite``: the code an invite-only game
        needs (``Forbidden``, ``invite_required``, without it). The returned :class:`Seat` holds the
        seat token, which the server never shows again: keep it (:meth:`Seat.save`).
        Not retried after a network error (a retry after a lost answer would find the
        seat taken by the lost request); retried when another join or command changed the
        table meanwhile (409 ``version_conflict``: nothing was written)."""
        body: dict[str, Any] = {} if name is None else {"name": name}
        if seat is not None:
            body["seat"] = seat
        if invite is not None:
            body["invite"] = invite
        path = f"/v1/games/{game_id}/seats"
        for attempt in range(JOIN_RACES):
            try:
                answer = self.request("POST", path, body=body, token=player_key, retry=False)
            except StaleVersion:
                if attempt + 1 == JOIN_RACES:
                    raise
                continue
            return self._seat(cast(Joined, answer.json()))
        raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises

    def rematch_of(self, game_id: str) -> str | None:
        """The id of finished game ``game_id``'s rematch, once one of its seats asked for
        it (:meth:`Seat.rematch`); None before."""
        return cast(RematchLink, self.request("GET", f"/v1/games/{game_id}/rematch").json())["rematch"]

    def _seat(self, joined: Joined) -> Seat:
        number = joined["seat"]
        name = joined["view"]["seats"][number]["name"] or ""
        version = joined["view"]["version"]
        return Seat(self, joined["game_id"], number, joined["token"], name, version)

    def seat(self, game_id: str, seat: int, token: str, name: str = "") -> Seat:
        """A seat taken earlier (its token kept), to play on after a restart."""
        return Seat(self, game_id, seat, token, name, 0)

    def player(self, name: str) -> PlayerTotals:
        """A player's totals over finished games (zeros for an unknown name), and the
        account's ratings."""
        return cast(PlayerTotals, self.get_json(f"/v1/players/{quote(name, safe='')}"))

    def leaderboard(
        self, game: str, *, limit: int | None = None, cursor: str | None = None
    ) -> Leaderboard:
        """One page of ``game``'s ratings, highest ``ordinal`` first (``next_cursor``)."""
        path = f"/v1/ratings/{quote(game, safe='')}"
        return cast(Leaderboard, self.get_json(path, params={"limit": limit, "cursor": cursor}))

    def rating_history(
        self,
        game: str,
        name: str,
        *,
        bot: bool = False,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> RatingHistory:
        """An account's (or, ``bot`` True, a bot level's) rating in ``game`` and one page of
        its rated games, newest first."""
        kind = "bots" if bot else "players"
        path = f"/v1/ratings/{quote(game, safe='')}/{kind}/{quote(name, safe='')}"
        params = {"limit": limit, "cursor": cursor}
        return cast(RatingHistory, self.get_json(path, params=params))

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

    def legal_compact(self, game_id: str, *, token: str | None = None) -> LegalCompact:
        """As :meth:`legal`, with each k-of-n pick (an inspect) described once as a
        :class:`CommandChoice` instead of one command per combination."""
        params = {"form": "compact"}
        path = f"/v1/games/{game_id}/legal"
        return cast(LegalCompact, self.get_json(path, token=token, params=params))

    # -- accounts ------------------------------------------------------------------

    def register(self, name: str) -> Registered:
        """Register ``name`` (refused, 409, when it or a look-alike is taken). The answer's
        ``player_key`` is shown once: keep it; as a bearer token it takes seats
        (:meth:`join` with ``token=``) and acts for them. Not retried (a retry after a
        lost answer would find the name taken by the lost request)."""
        answer = self.request("POST", "/v1/players", body={"name": name}, retry=False)
        return cast(Registered, answer.json())

    def rotate_key(self, player_key: str) -> Registered:
        """Replace ``player_key`` (one that leaked) by a fresh key of the same account,
        shown once: the old one is refused from now on (by every server process within
        a second). Not retried: a retry after a lost answer would be refused, the key it
        sends being the replaced one -- and the lost answer's key would be lost with it."""
        answer = self.request("POST", "/v1/players/me/key", token=player_key, retry=False)
        return cast(Registered, answer.json())

    def my_account(self, player_key: str) -> MyAccount:
        """The name of the account ``player_key`` belongs to (401 for a key that fits none)."""
        return cast(MyAccount, self.get_json("/v1/players/me/account", token=player_key))

    def my_games(
        self, player_key: str, *, limit: int | None = None, cursor: int | None = None
    ) -> MyGames:
        """A page of the account's games, newest first, each with whether it is to move."""
        params = {"limit": limit, "cursor": cursor}
        page = self.get_json("/v1/players/me/games", token=player_key, params=params)
        return cast(MyGames, page)

    def player_stream_ticket(self, player_key: str) -> StreamTicket:
        """A single-use ticket that opens the account's player stream with ``?ticket=``
        (for clients that cannot send headers on a stream). Not retried."""
        path = "/v1/players/me/stream-tickets"
        return cast(StreamTicket, self.request("POST", path, token=player_key, retry=False).json())

    def reissue_seat_token(self, game_id: str, seat: int, player_key: str) -> Seat:
        """Take the account's seat back after losing its seat token: a fresh token (the
        old one is refused from now on). Not retried: a second reissue would revoke the
        first answer's token."""
        path = f"/v1/games/{game_id}/seats/{seat}/token"
        return self._seat(cast(Joined, self.request("POST", path, token=player_key, retry=False).json()))

    def stream_ticket(self, game_id: str, *, token: str) -> StreamTicket:
        """A single-use ticket that opens this game's stream as ``token``'s seat with
        ``?ticket=`` (for a client that cannot send headers on a stream; this client
        sends the bearer header and needs none). Not retried: a lost answer's ticket
        just expires."""
        path = f"/v1/games/{game_id}/stream-tickets"
        return cast(StreamTicket, self.request("POST", path, token=token, retry=False).json())

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
        """The game's events after ``after``, live, each exactly once and in order,
        across reconnections (:func:`tabletop_client.stream.follow`). Ends after the
        game's last event when ``until_end``; stop early by leaving the loop."""

        def pages(last: int) -> Iterator[Envelope]:
            return self.all_events(game_id, after=last, token=token)

        return follow(
            self,
            pages,
            game_id,
            token=token,
            after=after,
            until_end=until_end,
            read_timeout=read_timeout,
        )

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
