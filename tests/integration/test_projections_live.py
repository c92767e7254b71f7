"""Live projection: games written the way the application writes them, projected as
they go, end equal to a rebuild from the streams alone -- and every view on the way
is exactly what the engine shows that viewer.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
import redis
from support.histories import Player, seed_for, write_game
from support.readmodels import dump_read_models, rebuilt_read_models

from engine.registry import get_game
from engine.table import Table, evolve_table
from events.model.canonical import canonical_json
from events.model.redaction import ADMIN, SPECTATOR
from events.projections import ProjectionReader
from events.projections.keys import ReadModelKeys
from events.projections.reconcile import known_games, lagging_games
from events.redis_adapter import feed
from events.redis_adapter.store import RedisEventStore
from workers.projector import Projector

pytestmark = pytest.mark.store

SHARDS = 3
GAMES: list[tuple[str, str, list[Player | None], int | None]] = [
    ("s-done", "schlitzohr", [("Ann", None), ("Bob", None), ("Eve", "random")], None),
    ("a-done", "abluxxen", [("Ann", None), ("Cy", "random"), ("Bob", None)], None),
    ("a-run", "abluxxen", [("Bob", None), ("Cy", None)], 15),
    ("s-open", "schlitzohr", [("Eve", None), None], None),
]


class EngineMirror:
    """The test's own fold of each game (engine.table only), to compare views with."""

    def __init__(self, store: RedisEventStore) -> None:
        self.store = store
        self.tables: dict[str, Table] = {}

    def advance(self, game_id: str) -> Table:
        table = self.tables.get(game_id)
        after = table.version if table else 0
        for envelope in self.store.read_range(game_id, ADMIN, after + 1):
            game = get_game(table.game if table else envelope.data["game"])
            table = evolve_table(game, table, envelope.to_event(), envelope.version, envelope.time)
        assert table is not None
        self.tables[game_id] = table
        return table


def engine_view(table: Table, seat: int | None) -> Any:
    return json.loads(canonical_json(get_game(table.game).view(table.state, seat)))


def test_live_read_models_equal_a_full_rebuild_and_show_engine_views(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str
) -> None:
    projector = Projector(redis_client, key_prefix, shards=SHARDS, consumer="live")
    reader = ProjectionReader(redis_client, store, key_prefix)
    mirror = EngineMirror(store)

    def on_append(game_id: str, version: int) -> None:
        feed.publish(redis_client, key_prefix, game_id, version, shards=SHARDS)
        projector.catch_up_once()
        table = mirror.advance(game_id)
        for seat in [*range(len(table.seats)), None]:
            got = reader.read_view(game_id, SPECTATOR if seat is None else seat, version)
            assert (got.version, got.projected, got.status) == (version, True, table.status)
            assert got.view == engine_view(table, seat)

    for game_id, name, players, commands in GAMES:
        write_game(
            store,
            game_id,
            name,
            players,
            seed=seed_for(game_id),
            commands=commands,
            on_append=on_append,
        )
    assert projector.applied == sum(t.version for t in mirror.tables.values())
    live = dump_read_models(redis_client, key_prefix)
    assert live == rebuilt_read_models(redis_client, key_prefix)
    assert reader.player_totals("Ann").games == 2


def test_running_projector_follows_concurrent_writers(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str
) -> None:
    projector = Projector(
        redis_client,
        key_prefix,
        shards=SHARDS,
        consumer="runner",
        reconcile_every_s=0.5,
        block_ms=100,
    )
    stop = threading.Event()
    runner = threading.Thread(target=projector.run, args=(stop,))
    runner.start()
    try:
        for game_id, name, players, commands in GAMES[1:3]:
            write_game(
                store,
                game_id,
                name,
                players,
                seed=seed_for(game_id),
                commands=commands,
                on_append=lambda g, v: feed.publish(redis_client, key_prefix, g, v, shards=SHARDS),
            )
        wait_until_projected(redis_client, key_prefix)
    finally:
        stop.set()
        runner.join(10)
    assert not runner.is_alive()
    live = dump_read_models(redis_client, key_prefix)
    assert live == rebuilt_read_models(redis_client, key_prefix)


def wait_until_projected(client: redis.Redis, prefix: str, timeout: float = 20.0) -> None:
    """Until every game's read models are at its head (and cross-slot ones complete)."""
    keys = ReadModelKeys(prefix)
    deadline = time.monotonic() + timeout
    while lagging_games(client, keys, known_games(client, keys)):
        assert time.monotonic() < deadline, "the projector did not catch up"
        time.sleep(0.05)
