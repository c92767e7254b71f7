"""Loading a game's engine state, or its whole table: latest snapshot + the events after it.

Guarantee: :func:`load_state` returns the same state as folding the whole
history with ``game.evolve`` (record events such as ``GameCreated`` and
``SeedRevealed`` are skipped: the engine never sees them). It trusts the
snapshot only if it was written under the engine's current rules version and
decodes cleanly; otherwise it replays everything. When the history has grown by
``snapshot_every`` events since the last snapshot it writes a new one, so later
loads fold at most about that many events.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.game import Game
from engine.table import Table, evolve_table
from events.model import defaults
from events.model.errors import GameNotFound, SnapshotError
from events.model.port import EventStore
from events.model.records import RECORD_TYPES
from events.model.redaction import ADMIN
from events.state.codec import StateCodec
from events.state.snapshots import default_codec, snapshot_due, snapshot_of


@dataclass(frozen=True, slots=True)
class Loaded:
    """An engine state and the version it is at (``state`` is None before setup events)."""

    state: Any
    version: int
    snapshot_version: int


def load_state(
    store: EventStore,
    game: Game[Any],
    game_id: str,
    *,
    snapshot_every: int | None = None,
    codec: StateCodec | None = None,
) -> Loaded:
    """The current state of ``game_id`` (see the module docstring).

    Raises GameNotFound for a game without events. ``snapshot_every`` defaults to
    ``TABLETOP_SNAPSHOT_EVERY``.
    """
    codec = codec or default_codec()
    every = defaults.snapshot_every_from_env() if snapshot_every is None else snapshot_every
    state, version = _from_snapshot(store, game, game_id, codec)
    snapshot_version = version
    # The loader is the server itself: it reads as ADMIN, hidden parts included.
    for envelope in store.read_range(game_id, ADMIN, version + 1):
        if envelope.type not in RECORD_TYPES:
            state = game.evolve(state, envelope.to_event())
        version = envelope.version
    if version == 0:
        raise GameNotFound(game_id)
    if state is not None and snapshot_due(snapshot_version, version, every):
        store.save_snapshot(game_id, snapshot_of(state, version, game.rules_version, codec))
        snapshot_version = version
    return Loaded(state, version, snapshot_version)


def _from_snapshot(
    store: EventStore, game: Game[Any], game_id: str, codec: StateCodec
) -> tuple[Any, int]:
    snapshot = store.load_snapshot(game_id)
    if snapshot is None or snapshot.rules_version != game.rules_version:
        return None, 0
    try:
        return codec.decode(snapshot.payload), snapshot.version
    except SnapshotError:
        return None, 0  # a cache we cannot read is a cache miss


@dataclass(frozen=True, slots=True)
class LoadedTable:
    """A game's table (lobby + engine state) at ``table.version``."""

    table: Table
    snapshot_version: int


def table_rules(game: Game[Any]) -> str:
    """The snapshot tag of tables of ``game``: tables snapshot under their own tag, so a
    table snapshot and an engine-state snapshot are never mistaken for each other."""
    return f"table+{game.rules_version}"


def load_table(
    store: EventStore,
    game: Game[Any],
    game_id: str,
    *,
    after: Table | None = None,
    snapshot_every: int | None = None,
    codec: StateCodec | None = None,
) -> LoadedTable:
    """The current :class:`~engine.table.Table` of ``game_id``: the fold of its whole
    history with ``engine.table.evolve_table``.

    ``after`` (a table the caller already holds, e.g. from a cache) saves reading
    what it already covers; otherwise the latest table snapshot is the start. The
    result equals a full fold either way. Writes a snapshot when one is due.
    Raises GameNotFound for a game without events.
    """
    codec = codec or default_codec()
    every = defaults.snapshot_every_from_env() if snapshot_every is None else snapshot_every
    table, snapshot_version = (after, 0) if after is not None else _table_snapshot(store, game, game_id, codec)
    version = table.version if table is not None else 0
    for envelope in store.read_range(game_id, ADMIN, version + 1):
        table = evolve_table(game, table, envelope.to_event(), envelope.version, envelope.time)
    if table is None:
        raise GameNotFound(game_id)
    if after is None and snapshot_due(snapshot_version, table.version, every):
        store.save_snapshot(game_id, snapshot_of(table, table.version, table_rules(game), codec))
        snapshot_version = table.version
    return LoadedTable(table, snapshot_version)


def _table_snapshot(store: EventStore, game: Game[Any], game_id: str, codec: StateCodec) -> tuple[Table | None, int]:
    snapshot = store.load_snapshot(game_id)
    if snapshot is None or snapshot.rules_version != table_rules(game):
        return None, 0
    try:
        table = codec.decode(snapshot.payload)
    except SnapshotError:
        return None, 0  # a cache we cannot read is a cache miss
    return (table, snapshot.version) if isinstance(table, Table) else (None, 0)
