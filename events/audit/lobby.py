"""Checking the table events of a history (seats, start, seed reveal) against the lobby rules.

The engine never sees these events; ``engine.table`` folds them. A history is
consistent when each one is what the application could have written at that
point (see ``service/app``):

- ``SeatTaken``: the game is open, the seat exists and is free, the name is a valid
  one no other person at the table uses (``engine.table.check_join``); written by
  the system (bots, at creation) or by the seat itself;
- ``SeatLeft``: the game is open and the seat is taken; written by that seat or the
  system;
- ``PlayStarted``: the game is open, set up, and every seat is taken;
- ``SeedRevealed``: the game has ended, the system wrote it, and it is the last event;
- ``GameExpired``: the system wrote it, with reason ``not_started`` while the game is
  open, or ``idle`` while it runs (an expired game never reveals its seed, so a
  verified history can only hold one by forgery);
- ``SeatTokenReissued``: the seat is held by a registered player, the game is open or
  running (``engine.table.check_reissue``); written by that seat;
- ``InviteRenewed``: the game is invite-only and open, the seat is held by a person,
  and that seat wrote it (``engine.table.check_renew_invite``);
- ``TurnTimedOut``: the game runs with a turn clock, no other timeout is pending, the
  seat is a person to act whose deadline (from the fold, ``engine.turnclock``) is the
  one recorded, the event's time is not before it, the policy is the clock's, and the
  system wrote it;
- ``GameCreated`` only ever at version 1.

No table event carries a command. Failures raise Discrepant of kind ``rules``
(``structure`` for a second ``GameCreated``).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.errors import RuleViolation
from engine.table import (
    FINISHED,
    GAME_CREATED,
    GAME_EXPIRED,
    GAME_STARTED,
    INVITE_RENEWED,
    OPEN,
    RUNNING,
    SEAT_LEFT,
    SEAT_TAKEN,
    SEAT_TOKEN_REISSUED,
    SEED_REVEALED,
    TURN_TIMED_OUT,
    Table,
    check_join,
    check_leave,
    check_reissue,
    check_renew_invite,
)
from engine.turnclock import time_ms
from events.audit.report import RULES, STRUCTURE, Discrepant
from events.model.envelope import Envelope


def check_table_event(table: Table, envelope: Envelope, last: bool) -> None:
    """Discrepant unless ``envelope`` (a table event) may follow ``table``; ``last``: it is
    the history's final event."""
    version, kind = envelope.version, envelope.type
    if kind == GAME_CREATED:
        raise Discrepant(version, STRUCTURE, "a second GameCreated: a history creates one game")
    if envelope.command is not None:
        raise Discrepant(version, RULES, f"{kind} carries a command; table events never do")
    if kind == SEAT_TAKEN:
        _seat_taken(table, envelope)
    elif kind == SEAT_LEFT:
        _seat_left(table, envelope)
    elif kind == SEAT_TOKEN_REISSUED:
        _by_its_seat(table, envelope, check_reissue)
    elif kind == GAME_STARTED:
        _play_started(table, envelope)
    elif kind == SEED_REVEALED:
        _seed_revealed(table, envelope, last)
    elif kind == TURN_TIMED_OUT:
        _turn_timed_out(table, envelope)
    elif kind == GAME_EXPIRED:
        _game_expired(table, envelope)
    elif kind == INVITE_RENEWED:
        _by_its_seat(table, envelope, check_renew_invite)


def _by_its_seat(table: Table, envelope: Envelope, rule: Callable[[Table, int], None]) -> None:
    """Discrepant unless the event's own seat wrote it and ``rule`` allows it there."""
    seat, kind = envelope.data["seat"], envelope.type
    if envelope.actor_seat != seat:
        raise Discrepant(envelope.version, RULES, f"{kind} for seat {seat} not written by that seat")
    try:
        rule(table, seat)
    except RuleViolation as err:
        raise Discrepant(envelope.version, RULES, f"{kind} breaks the lobby rules: {err}") from None


def _game_expired(table: Table, envelope: Envelope) -> None:
    status = {"not_started": OPEN, "idle": RUNNING}.get(str(envelope.data.get("reason")))
    if table.status != status or envelope.actor != {"kind": "system"}:
        raise Discrepant(
            envelope.version, RULES,
            "GameExpired is written by the system: not_started while the game is open, idle while it runs",
        )


def _seat_taken(table: Table, envelope: Envelope) -> None:
    seat = envelope.data["seat"]
    _check_writer(envelope, seat)
    try:
        check_join(table, envelope.data["name"], seat)
    except RuleViolation as err:
        raise Discrepant(
            envelope.version, RULES, f"SeatTaken breaks the lobby rules: {err}"
        ) from None




def _seat_left(table: Table, envelope: Envelope) -> None:
    seat = envelope.data["seat"]
    _check_writer(envelope, seat)
    try:
        check_leave(table, seat)
    except RuleViolation as err:
        raise Discrepant(
            envelope.version, RULES, f"SeatLeft breaks the lobby rules: {err}"
        ) from None
    if not 0 <= seat < len(table.seats) or table.seats[seat].free:
        raise Discrepant(envelope.version, RULES, f"SeatLeft frees seat {seat}, which nobody holds")


def _play_started(table: Table, envelope: Envelope) -> None:
    if table.status != OPEN:
        raise Discrepant(envelope.version, RULES, "PlayStarted, but play had already started")
    if table.state is None:
        raise Discrepant(envelope.version, RULES, "PlayStarted before the game was set up")
    free = table.free_seats()
    if free:
        raise Discrepant(envelope.version, RULES, f"PlayStarted while seats {free} are free")


def _seed_revealed(table: Table, envelope: Envelope, last: bool) -> None:
    if table.status != FINISHED:
        raise Discrepant(envelope.version, RULES, "SeedRevealed before the game ended")
    if envelope.actor.get("kind") != "system":
        raise Discrepant(
            envelope.version, RULES, "SeedRevealed written by a player, not the system"
        )
    if not last:
        raise Discrepant(envelope.version + 1, RULES, "an event after SeedRevealed")


def _turn_timed_out(table: Table, envelope: Envelope) -> None:
    version, data, clock = envelope.version, envelope.data, table.clock
    if envelope.actor != {"kind": "system"}:
        raise Discrepant(version, RULES, "TurnTimedOut written by a player, not the system")
    if clock is None or table.status != RUNNING:
        raise Discrepant(version, RULES, "TurnTimedOut in a game without a running clock")
    if clock.pending is not None:
        raise Discrepant(version, RULES, f"TurnTimedOut while seat {clock.pending}'s timeout is still owed")
    seat = data["seat"]
    deadline = clock.deadline_ms(seat) if 0 <= seat < len(clock.since) else None
    if deadline is None:
        raise Discrepant(version, RULES, f"TurnTimedOut for seat {seat}, which has no deadline")
    if data["policy"] != clock.policy:
        raise Discrepant(version, RULES, f"TurnTimedOut names policy {data['policy']}, the clock's is {clock.policy}")
    if time_ms(data["deadline"]) != deadline:
        raise Discrepant(version, RULES, f"TurnTimedOut records deadline {data['deadline']}, the clock gives another")
    if time_ms(envelope.time) < deadline:
        raise Discrepant(version, RULES, f"TurnTimedOut at {envelope.time}, before seat {seat}'s deadline")


def _check_writer(envelope: Envelope, seat: int) -> None:
    """Seats are taken or left by the system (bots at creation) or by that very seat."""
    writer = envelope.actor_seat
    if envelope.actor.get("kind") != "system" and writer != seat:
        raise Discrepant(
            envelope.version,
            RULES,
            f"{envelope.type} for seat {seat} written by {envelope.actor}: only that seat"
            " or the system may",
        )
