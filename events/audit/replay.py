"""Replaying a history: the table at any version, and what a viewer saw of it then.

Pure over envelopes (``store.read_range(game_id, ADMIN, 1, n)``, or a file through
``events.audit.verify.load_envelopes``): the table at version n is the fold of
versions 1..n with ``engine.table.evolve_table`` -- exactly what the live server
held right after writing version n. The commitment to the seed is part of every
table (``Table.commitment``), so every view can show it from the start.

Failure modes: :class:`ReplayError` for a version outside the history, for a
redacted history (its hidden parts are needed to rebuild the state: replay the
complete history and let the view hide what the viewer may not see), and for an
event the rules cannot apply (an unverified, broken history).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from engine.model import JSON
from engine.registry import get_game
from engine.table import FINISHED, Table, evolve_table
from events.model.envelope import Envelope
from events.state.clockview import clock_json, deadlines_json


class ReplayError(Exception):
    """The history cannot be replayed to the version asked for."""

    def __init__(self, version: int, message: str) -> None:
        super().__init__(f"version {version}: {message}")
        self.version = version
        self.message = message


def tables(history: Sequence[Envelope]) -> Iterator[Table]:
    """The table after each version, in order (one per envelope)."""
    table: Table | None = None
    for envelope in history:
        if envelope.redacted:
            raise ReplayError(
                envelope.version, "this history is redacted; a replay needs the complete one"
            )
        try:
            game = get_game(table.game if table is not None else str(envelope.data.get("game")))
            table = evolve_table(game, table, envelope.to_event(), envelope.version, envelope.time)
        except Exception as exc:  # the engine trusts its input; an unverified file is not trusted
            raise ReplayError(
                envelope.version, f"{envelope.type} cannot be applied: {exc!r}"
            ) from exc
        yield table


def table_at(history: Sequence[Envelope], version: int) -> Table:
    """The table right after ``version`` (1..len(history))."""
    _check_version(history, version)
    *_, table = tables(history[:version])
    return table


def view_at(history: Sequence[Envelope], version: int, seat: int | None) -> JSON:
    """What ``seat`` (None = a spectator) saw right after ``version``: see :func:`view_of`."""
    return view_of(table_at(history, version), seat)


def view_of(table: Table, seat: int | None) -> JSON:
    """A table as ``seat`` may see it: who sits where, the status, the commitment (and
    the seed once revealed), the game's own view (``game.view``; None before setup), and
    its turn clock with the deadlines then (``events.state.clockview``)."""
    game: Any = get_game(table.game)
    return {
        "game": table.game,
        "version": table.version,
        "status": table.status,
        "seats": [{"seat": i, "name": s.name, "bot": s.bot, "guest": s.guest} for i, s in enumerate(table.seats)],
        "options": dict(table.options),
        "commitment": table.commitment,
        "seed": table.seed if table.status == FINISHED else None,
        "state": None if table.state is None else game.view(table.state, seat),
        "clock": clock_json(table),
        "deadlines": deadlines_json(table),
        "invite_only": table.invite_only,
        "rematch_of": table.rematch_of,
    }


def _check_version(history: Sequence[Envelope], version: int) -> None:
    if type(version) is not int or not 1 <= version <= len(history):
        raise ReplayError(version, f"the history holds versions 1..{len(history)}")
