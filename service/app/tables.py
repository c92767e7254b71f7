"""Tables by game id, with a per-process cache.

Guarantee: :meth:`TableRepository.load` returns the table at the game's current
head (it always reads the events after what the cache holds -- one XRANGE, usually
empty). :meth:`TableRepository.cached` may be behind; the command path uses it
optimistically, because the append script refuses any write that was not decided
on the current version, so a stale cache can cost a retry but never a wrong event.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from engine.game import Game
from engine.registry import get_game
from engine.table import Table
from events.model.errors import GameNotFound as StoreGameNotFound
from events.redis_adapter.store import RedisEventStore
from events.state.loading import load_table
from service.app.errors import GameNotFound
from service.locks import section_lock

CACHE_SIZE = 2_000
"""Tables one process keeps; least recently used ones are dropped first."""


class TableRepository:
    """Loads tables from the store and keeps recent ones in memory. Thread-safe."""

    def __init__(self, store: RedisEventStore, snapshot_every: int = 100, size: int = CACHE_SIZE) -> None:
        self.store = store
        self._every = snapshot_every
        self._size = size
        self._cache: OrderedDict[str, Table] = OrderedDict()
        self._lock = section_lock()  # around dict work only: it never waits

    def cached(self, game_id: str) -> Table | None:
        """The table this process last saw, possibly behind the store."""
        with self._lock:
            table = self._cache.get(game_id)
            if table is not None:
                self._cache.move_to_end(game_id)
            return table

    def load(self, game_id: str) -> Table:
        """The table at the current head; GameNotFound for an unknown id."""
        known = self.cached(game_id)
        game = self.game_of(known, game_id)
        try:
            table = load_table(self.store, game, game_id, after=known, snapshot_every=self._every).table
        except (StoreGameNotFound, ValueError):
            raise GameNotFound(f"no game {game_id!r}", game_id=game_id) from None
        self.remember(game_id, table)
        return table

    def remember(self, game_id: str, table: Table) -> None:
        """Cache ``table`` unless a newer one is cached already."""
        with self._lock:
            current = self._cache.get(game_id)
            if current is None or current.version < table.version:
                self._cache[game_id] = table
                self._cache.move_to_end(game_id)
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)

    def game_of(self, table: Table | None, game_id: str) -> Game[Any]:
        """The rules of a game: from the cached table, else from its first event."""
        if table is not None:
            return get_game(table.game)
        try:
            first = self.store.read_range(game_id, 0, 1, 1)  # seat 0's view of GameCreated: public
        except ValueError:
            first = []
        if not first:
            raise GameNotFound(f"no game {game_id!r}", game_id=game_id)
        return get_game(first[0].data["game"])
