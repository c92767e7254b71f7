"""The table around a game: who sits where, and whether play has begun. Pure.

A game's history starts with ``GameCreated`` and the engine's setup events, then
the lobby: ``SeatTaken`` / ``SeatLeft`` until every seat is taken, then
``PlayStarted``; after that only the engine's events, and ``SeedRevealed`` after
``GameEnded``. A game whose seats were not all taken in time ends in the lobby
instead, and a running game nobody acts in for too long ends without a result:
``GameExpired`` (written by the sweeper, as the system; reason ``not_started`` or
``idle``) makes it ``expired`` for good -- no seat can be taken or left, no command
is accepted. :func:`evolve_table` folds that whole history into a
:class:`Table` -- the lobby part here, everything else through ``game.evolve``.

Seats taken by bots are taken in the creation batch, so a game of bots only
starts at once. The rules for the lobby (checked by :func:`check_join` and
:func:`check_leave`) raise RuleViolation with stable codes, like the engines.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from engine.errors import RuleViolation
from engine.game import Game
from engine.model import Event
from engine.turnclock import ClockState, tick, time_ms, timed_out
from engine.turnclock import start as start_clock

GAME_CREATED = "GameCreated"
SEAT_TAKEN = "SeatTaken"
SEAT_LEFT = "SeatLeft"
GAME_STARTED = "PlayStarted"
GAME_ENDED = "GameEnded"
SEED_REVEALED = "SeedRevealed"
GAME_EXPIRED = "GameExpired"
SEAT_TOKEN_REISSUED = "SeatTokenReissued"
TURN_TIMED_OUT = "TurnTimedOut"
INVITE_RENEWED = "InviteRenewed"
TABLE_TYPES = frozenset(
    {
        GAME_CREATED,
        SEAT_TAKEN,
        SEAT_LEFT,
        GAME_STARTED,
        SEED_REVEALED,
        GAME_EXPIRED,
        SEAT_TOKEN_REISSUED,
        TURN_TIMED_OUT,
        INVITE_RENEWED,
    }
)
"""Event types of the table; the engine never sees them."""

FINAL_TYPES = frozenset({SEED_REVEALED, GAME_EXPIRED})
"""Nothing follows these in a history: a finished game's seed reveal, an expiry."""

OPEN, RUNNING, FINISHED, EXPIRED = "open", "running", "finished", "expired"

# Lobby rule-violation codes (stable, part of the API).
SEAT_TAKEN_CODE = "seat_taken"
NO_FREE_SEAT = "no_free_seat"
GAME_ALREADY_STARTED = "game_already_started"
GAME_NOT_STARTED = "game_not_started"
GAME_EXPIRED_CODE = "game_expired"
BAD_PLAYER_NAME = "bad_player_name"
NAME_TAKEN = "name_taken"
NOT_INVITE_ONLY_CODE = "not_invite_only"
MAX_NAME_LENGTH = 40


@dataclass(frozen=True, slots=True)
class Seat:
    """One seat: free (``name`` None), a person, or a bot of some level.

    ``token_hash`` is SHA-256 of the seat token handed to the person who took the
    seat (None for bots). It travels in the private part of ``SeatTaken``, seen by
    nobody while the game runs, so the check of a token needs no lookup of its own
    and the table stays a pure fold of its events. After the end it is public like
    everything else -- harmless: a hash of a 256-bit secret reveals nothing, and a
    token of a finished game can do nothing.

    ``account`` is the canonical name of the registered player who took the seat
    (None for a guest or a bot); ``SeatTokenReissued`` replaces ``token_hash`` (the
    old token is refused from that version on).
    """

    name: str | None = None
    bot: str | None = None
    token_hash: str | None = None
    account: str | None = None

    @property
    def free(self) -> bool:
        return self.name is None

    @property
    def guest(self) -> bool:
        """A person without an account (a bot or a free seat is no guest)."""
        return self.name is not None and self.bot is None and self.account is None


@dataclass(frozen=True, slots=True)
class Table:
    """A game's table: its type, options, seats, status, engine state and version."""

    game: str
    options: Mapping[str, Any]
    seats: tuple[Seat, ...]
    status: str
    state: Any
    version: int
    created: str
    commitment: str
    seed: str | None = None
    clock: ClockState | None = None
    """The turn clock (``engine.turnclock``); None for a game without one."""
    invite_only: bool = False
    """Whether a seat needs the game's invite code (public: ``GameCreated``'s
    ``invite_only``)."""
    invite_hash: str | None = None
    """SHA-256 of that code, from ``GameCreated``'s hidden part (``service.app.invites``
    checks it); None in a table folded from a history redacted for a viewer."""
    rematch_of: str | None = None
    """The finished game this one is a rematch of (public: ``GameCreated``'s
    ``rematch_of``; ``service.app.rematches``); None for any other game."""

    def seat_of(self, name: str) -> int | None:
        """The seat a person called ``name`` holds, if any."""
        return next((i for i, s in enumerate(self.seats) if s.name == name and s.bot is None), None)

    def seat_of_account(self, account: str) -> int | None:
        """The seat the registered player ``account`` holds, if any (at most one: see
        :func:`check_join`)."""
        return next((i for i, s in enumerate(self.seats) if s.account == account), None)

    def free_seats(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.free]

    @property
    def seats_settled(self) -> bool:
        """Whether nobody can take another's seat any more: play has begun (running or
        finished). Before that a seat can be left and taken by someone else, so its
        private facts (an Abluxxen hand is dealt when the game is created) are shown to
        nobody -- else one person could sit in every seat in turn and learn each hand."""
        return self.status in (RUNNING, FINISHED)

    def bot_seats(self) -> dict[int, str]:
        return {i: s.bot for i, s in enumerate(self.seats) if s.bot is not None}


def seat_taken(
    seat: int, name: str, bot: str | None = None, token_hash: str | None = None, account: str | None = None
) -> Event:
    """A seat taken by a bot (``bot`` = level) or a person (``token_hash`` of their token).

    A person's seat says in public whether a registered player took it: ``"account":
    <canonical name>, "guest": false``, or ``"guest": true`` (no ``account``). Bot
    seats carry neither (``bot`` says what they are)."""
    if token_hash is None:
        return Event(SEAT_TAKEN, {"seat": seat, "name": name, "bot": bot})
    data: dict[str, Any] = {"seat": seat, "name": name, "bot": bot}
    data.update({"account": account, "guest": False} if account is not None else {"guest": True})
    return Event(SEAT_TAKEN, data, {"token_hash": token_hash}, ())


def seat_token_reissued(seat: int, token_hash: str) -> Event:
    """A registered player took its seat back with a fresh token: ``token_hash`` replaces
    the seat's (private, seen by nobody in play, like ``SeatTaken``'s)."""
    return Event(SEAT_TOKEN_REISSUED, {"seat": seat}, {"token_hash": token_hash}, ())


def invite_renewed(seat: int, invite_hash: str) -> Event:
    """``seat`` gave its invite-only game a new invite code: ``invite_hash`` (private,
    seen by nobody in play, like ``GameCreated``'s) replaces the old one, which no
    longer seats anyone."""
    return Event(INVITE_RENEWED, {"seat": seat}, {"invite_hash": invite_hash}, ())


def seat_left(seat: int) -> Event:
    return Event(SEAT_LEFT, {"seat": seat})


def game_started() -> Event:
    return Event(GAME_STARTED, {})


def game_expired(open_s: int) -> Event:
    """The game never started: its seats were not all taken within ``open_s`` seconds."""
    return Event(GAME_EXPIRED, {"reason": "not_started", "open_s": open_s})


def game_idle(idle_s: int) -> Event:
    """The game ran, but nobody acted for ``idle_s`` seconds: it is over, unscored."""
    return Event(GAME_EXPIRED, {"reason": "idle", "idle_s": idle_s})


def turn_timed_out(seat: int, policy: str, deadline: str) -> Event:
    """``seat`` let its deadline (ISO 8601 UTC) pass; ``policy`` now decides for it.
    Public facts only: who, when, and what happens next (the clock is public)."""
    return Event(TURN_TIMED_OUT, {"seat": seat, "policy": policy, "deadline": deadline})


def check_not_expired(table: Table) -> None:
    """RuleViolation ``game_expired`` for a game that expired: in the lobby, or idle."""
    if table.status == EXPIRED:
        raise RuleViolation(
            GAME_EXPIRED_CODE, "this game expired: its seats were not all taken in time, or nobody acted for too long"
        )


BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Bidirectional marks, embeddings, overrides and isolates: they can make a name read
as another one, or reorder the text shown around it."""

_FORBIDDEN_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
"""Control characters (NUL, newlines, tabs, C1), surrogates, line/paragraph separators."""


def player_name(name: Any) -> str:
    """``name`` as a seat stores it -- normalised to NFC, so one name has one spelling --
    or RuleViolation ``bad_player_name`` (``details.reason``: ``not_text``,
    ``control_character`` or ``length``). Refused: control characters, surrogates,
    line separators and bidi controls anywhere; outer spaces; empty or longer than
    ``MAX_NAME_LENGTH`` characters after normalisation. (Confusable look-alikes are
    not judged here.)"""
    if not isinstance(name, str):
        raise RuleViolation(BAD_PLAYER_NAME, "a player name is a string", {"reason": "not_text"})
    for ch in name:
        if ch in BIDI_CONTROLS or unicodedata.category(ch) in _FORBIDDEN_CATEGORIES:
            raise RuleViolation(
                BAD_PLAYER_NAME,
                "a player name may not hold control, line-break or bidi characters",
                {"reason": "control_character"},
            )
    name = unicodedata.normalize("NFC", name)
    if not name.strip() or len(name) > MAX_NAME_LENGTH or name != name.strip():
        raise RuleViolation(
            BAD_PLAYER_NAME,
            f"a player name is 1 to {MAX_NAME_LENGTH} characters without outer spaces",
            {"reason": "length"},
        )
    return name


def check_join(table: Table, name: Any, seat: int | None) -> int:
    """The seat ``name`` may take (``seat`` None = the lowest free one), or RuleViolation.
    ``name`` must be as :func:`player_name` gives it (it is checked again here)."""
    check_not_expired(table)
    if table.status != OPEN:
        raise RuleViolation(GAME_ALREADY_STARTED, "every seat of this game is already taken")
    if player_name(name) != name:
        raise RuleViolation(
            BAD_PLAYER_NAME, "a player name must be in NFC", {"reason": "not_normalised"}
        )
    if table.seat_of(name) is not None:
        raise RuleViolation(NAME_TAKEN, f"{name!r} already sits at this table")
    free = table.free_seats()
    if seat is None:
        if not free:
            raise RuleViolation(NO_FREE_SEAT, "no seat is free")
        return free[0]
    if not 0 <= seat < len(table.seats):
        raise RuleViolation("invalid_seat", f"no seat {seat} in this game", {"seats": len(table.seats)})
    if seat not in free:
        raise RuleViolation(SEAT_TAKEN_CODE, f"seat {seat} is taken", {"free": free})
    return seat


def check_reissue(table: Table, seat: int) -> None:
    """RuleViolation unless ``seat`` may be given a fresh token now: a seat a registered
    player holds, in a game that is open or running."""
    check_not_expired(table)
    if not 0 <= seat < len(table.seats):
        raise RuleViolation("invalid_seat", f"no seat {seat} in this game", {"seats": len(table.seats)})
    if table.seats[seat].account is None:
        raise RuleViolation("seat_not_registered", f"seat {seat} is not held by a registered player")
    if table.status not in (OPEN, RUNNING):
        raise RuleViolation("game_over", "the game is over")


def check_renew_invite(table: Table, seat: int) -> None:
    """RuleViolation unless ``seat`` may give the game a new invite code now: an
    invite-only game still waiting for players (after the start an invitation is moot),
    the seat held by a person."""
    check_not_expired(table)
    if not table.invite_only:
        raise RuleViolation(NOT_INVITE_ONLY_CODE, "this game takes anyone: it has no invite code")
    if table.status != OPEN:
        raise RuleViolation(GAME_ALREADY_STARTED, "an invitation is renewed only before the game starts")
    if not 0 <= seat < len(table.seats) or table.seats[seat].free or table.seats[seat].bot is not None:
        raise RuleViolation("invalid_seat", f"seat {seat} is not held by a person", {"seats": len(table.seats)})


def check_leave(table: Table, seat: int) -> None:
    """RuleViolation unless ``seat`` may leave now (only before the game starts)."""
    check_not_expired(table)
    if table.status != OPEN:
        raise RuleViolation(GAME_ALREADY_STARTED, "a seat can only be left before the game starts")


def evolve_table(game: Game[Any], table: Table | None, event: Event, version: int, time: str) -> Table:
    """The table after ``event`` (stored at ``version`` at ``time``). A clocked table's
    clock moves only with a real time: the application folds a command's events before
    the store stamps them (``time`` empty), then again with the stamp."""
    after = _evolve_table(game, table, event, version, time)
    if after.clock is None or not time or event.type == GAME_CREATED:
        return after
    running = after.status == RUNNING and after.state is not None
    # Bots have no clock: their turns are bounded by their budget and the sweeper's
    # recovery of stalled bot jobs; a clock is for people who walk away.
    acting = [s for s in game.to_act(after.state) if after.seats[s].bot is None] if running else ()
    clock = tick(after.clock, acting, time_ms(time), event.type not in TABLE_TYPES)
    if event.type == TURN_TIMED_OUT:
        clock = timed_out(clock, event.data["seat"])
    t = after
    return Table(
        t.game, t.options, t.seats, t.status, t.state, t.version, t.created, t.commitment, t.seed, clock,
        t.invite_only, t.invite_hash, t.rematch_of,
    )


def _evolve_table(game: Game[Any], table: Table | None, event: Event, version: int, time: str) -> Table:
    if event.type == GAME_CREATED:
        d = event.data
        seats = tuple(Seat() for _ in range(d["seats"]))
        clock = start_clock(d["clock"], d["seats"]) if d.get("clock") is not None else None
        invite = bool(d.get("invite_only")), (event.private or {}).get("invite_hash")
        return Table(
            d["game"], dict(d["options"]), seats, OPEN, None, version, time, d["commitment"], None, clock, *invite,
            d.get("rematch_of"),
        )
    if table is None:
        raise ValueError("a history must start with GameCreated")
    if event.type == SEAT_TAKEN:
        taken = list(table.seats)
        token_hash = (event.private or {}).get("token_hash")
        taken[event.data["seat"]] = Seat(
            event.data["name"], event.data.get("bot"), token_hash, event.data.get("account")
        )
        return replace(table, seats=tuple(taken), version=version)
    if event.type == SEAT_TOKEN_REISSUED:
        reissued = list(table.seats)
        seat = event.data["seat"]
        reissued[seat] = replace(reissued[seat], token_hash=(event.private or {}).get("token_hash"))
        return replace(table, seats=tuple(reissued), version=version)
    if event.type == INVITE_RENEWED:
        return replace(table, invite_hash=(event.private or {}).get("invite_hash"), version=version)
    if event.type == SEAT_LEFT:
        left = list(table.seats)
        left[event.data["seat"]] = Seat()
        return replace(table, seats=tuple(left), version=version)
    if event.type == GAME_STARTED:
        return replace(table, status=RUNNING, version=version)
    if event.type == GAME_EXPIRED:
        return replace(table, status=EXPIRED, version=version)
    if event.type == SEED_REVEALED:
        return replace(table, seed=event.data["seed"], version=version)
    if event.type == TURN_TIMED_OUT:
        return replace(table, version=version)
    state = game.evolve(table.state, event)
    status = FINISHED if event.type == GAME_ENDED else table.status
    # Built directly, not by dataclasses.replace: this runs for every event of every
    # load and command, and replace's per-field introspection cost more than the rest.
    t = table
    return Table(
        t.game, t.options, t.seats, status, state, version, t.created, t.commitment, t.seed, t.clock,
        t.invite_only, t.invite_hash, t.rematch_of,
    )
