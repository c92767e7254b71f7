"""What a game's read models hold, computed from its table. Pure: no Redis.

A game's table (``engine.table.Table``: type, seats, status, engine state,
version) is the fold of its whole stored history with ``evolve_table``; the read
models are functions of it:

``<p>game:{<id>}:view`` (hash)
    ``v`` (the checkpoint: the version of the last event folded in), ``game``,
    ``rules`` (rules version), ``status``, ``seats`` (count), ``spectator`` (view
    JSON), ``seat:<n>`` (seat n's view JSON), ``scores`` (JSON list), ``result``
    (JSON or ``null``) and ``state`` -- the encoded table the next update starts
    from. ``state`` holds every hidden fact: server-side only, never served.
``<p>game:{<id>}:summary`` (hash)
    ``game``, ``status``, ``created`` (ISO time), ``seats`` (JSON list of
    ``{"name", "bot"}``, null for a free seat), ``options`` (JSON), ``version``.

Views are ``game.view(state, seat)`` per seat and ``game.view(state, None)`` for
spectators, so they hide exactly what the engine hides.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from engine.errors import RuleViolation
from engine.game import Game
from engine.model import JSON
from engine.registry import get_game
from engine.table import GAME_CREATED, Table, evolve_table
from events.model.canonical import canonical_json
from events.model.clock import TIME_FORMAT
from events.model.envelope import Envelope
from events.model.errors import SnapshotError
from events.state.codec import StateCodec
from events.state.snapshots import default_codec

CHECKPOINT = "v"
GAME = "game"
STATE = "state"
RULES = "rules"
STATUS = "status"
SEATS = "seats"
SPECTATOR_VIEW = "spectator"
SCORES = "scores"
RESULT = "result"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


class UnprojectableGame(Exception):
    """A history the projector cannot fold (an unknown game type, no ``GameCreated``
    first, no setup events). Retrying will not help."""

    def __init__(self, game_id: str, reason: str) -> None:
        super().__init__(f"game {game_id!r} cannot be projected: {reason}")
        self.game_id = game_id


def seat_view_field(seat: int) -> str:
    return f"seat:{seat}"


@dataclass(frozen=True, slots=True)
class GameRecord:
    """The fields of a game's two per-game hashes at ``version``."""

    version: int
    view: dict[str, str]
    summary: dict[str, str]


def fold(game_id: str, table: Table | None, envelopes: Iterable[Envelope]) -> Table | None:
    """``table`` after ``envelopes`` (full, unredacted ones); None if both are empty.

    Raises :class:`UnprojectableGame` for an unknown game type, a history that does
    not start with ``GameCreated``, or one without the engine's setup events.
    """
    game: Game[Any] | None = None
    try:
        for envelope in envelopes:
            if game is None:
                game = get_game(table.game if table else _created_type(envelope))
            table = evolve_table(game, table, envelope.to_event(), envelope.version, envelope.time)
    except (RuleViolation, ValueError) as exc:
        raise UnprojectableGame(game_id, str(exc)) from exc
    if table is not None and table.state is None:
        # The application creates a game with its setup events in one batch, so
        # every table read models are built from has an engine state.
        raise UnprojectableGame(game_id, "its creation batch holds no setup event")
    return table


def _created_type(first: Envelope) -> str:
    """The game type named by a history's first event; ValueError unless it is GameCreated."""
    game_type = first.data.get("game")
    if first.type != GAME_CREATED or not isinstance(game_type, str):
        raise ValueError(f"a history must start with GameCreated, not {first.type}")
    return game_type


def record_of(table: Table, codec: StateCodec | None = None) -> GameRecord:
    """The read models of ``table``."""
    game = get_game(table.game)
    state = table.state
    scores, result = scores_of(table)
    view: dict[str, str] = {
        CHECKPOINT: str(table.version),
        GAME: table.game,
        RULES: game.rules_version,
        STATUS: table.status,
        SEATS: str(len(table.seats)),
        SPECTATOR_VIEW: canonical_json(game.view(state, None)),
        SCORES: canonical_json(scores),
        RESULT: canonical_json(result),
        STATE: (codec or default_codec()).encode(table),
    }
    for seat in range(len(table.seats)):
        view[seat_view_field(seat)] = canonical_json(game.view(state, seat))
    return GameRecord(table.version, view, summary_of(table))


def scores_of(table: Table) -> tuple[list[int], JSON | None]:
    """Every seat's score so far, and the result's JSON once the game has ended."""
    game = get_game(table.game)
    result = game.result(table.state)
    return list(game.scores(table.state)), None if result is None else result.to_json()


def summary_of(table: Table) -> dict[str, str]:
    """The lobby's summary of ``table`` (no hidden facts, no tokens)."""
    seats = [None if s.free else {"name": s.name, "bot": s.bot, "guest": s.guest} for s in table.seats]
    summary = {
        GAME: table.game,
        STATUS: table.status,
        "created": table.created,
        SEATS: canonical_json(seats),
        "options": canonical_json(dict(table.options)),
        "version": str(table.version),
    }
    if table.invite_only:  # never changes, so other games' summaries need no field for it
        summary["invite_only"] = "1"
    if table.rematch_of is not None:  # likewise
        summary["rematch_of"] = table.rematch_of
    return summary


def decode_table(
    game_type: str | None,
    rules: str | None,
    text: str | bytes | None,
    codec: StateCodec | None = None,
) -> Table | None:
    """The stored table, or None if absent, written under other rules, or unreadable
    (the caller then folds the history from the start)."""
    if text is None or game_type is None:
        return None
    try:
        if rules != get_game(game_type).rules_version:
            return None
        table = (codec or default_codec()).decode(text)
    except (RuleViolation, SnapshotError):
        return None
    return table if isinstance(table, Table) else None


def created_us(time: str) -> int:
    """An envelope time as microseconds since the epoch (the lobby's sort score; exact
    in a double until the year 2255)."""
    moment = datetime.strptime(time, TIME_FORMAT).replace(tzinfo=UTC)
    return (moment - _EPOCH) // timedelta(microseconds=1)
