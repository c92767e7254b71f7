"""The projections on a real 3-master Redis Cluster: per-game keys in the game's slot,
the lobby in ``{lobby}``'s, totals in each player's, feed shards in their own --
no CROSSSLOT anywhere, and the live result equals a rebuild."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from redis.cluster import RedisCluster
from support.clock import StepClock
from support.cluster import LocalCluster
from support.histories import Player, seed_for, write_game
from support.readmodels import dump_read_models, rebuilt_read_models
from support.redis import delete_prefix, unique_prefix

from events.projections import ProjectionReader
from events.redis_adapter import feed
from events.redis_adapter.store import RedisEventStore
from workers.projector import Projector

pytestmark = pytest.mark.store

SHARDS = 3


@pytest.fixture
def on_cluster(local_cluster: LocalCluster) -> Iterator[tuple[RedisCluster, str]]:
    """A client of the session's cluster and a fresh key prefix, deleted afterwards."""
    client, prefix = local_cluster.client(), unique_prefix()
    yield client, prefix
    delete_prefix(client, prefix)
    client.close()


def test_projection_on_a_cluster_equals_a_rebuild(on_cluster: tuple[RedisCluster, str]) -> None:
    client, prefix = on_cluster
    store = RedisEventStore(client, prefix=prefix, clock=StepClock())
    projector = Projector(client, prefix, shards=SHARDS, consumer="c", claim_idle_ms=0)

    def publish(game_id: str, version: int) -> None:
        feed.publish(client, prefix, game_id, version, shards=SHARDS)

    games: list[tuple[str, str, list[Player | None], int | None]] = [
        ("x1", "abluxxen", [("Ann", None), ("Bob", "random")], None),
        ("x2", "schlitzohr", [("Bob", None), ("Ann", None), ("Cy", None)], 20),
        ("x3", "schlitzohr", [("Cy", None), None], None),
    ]
    for game_id, name, players, commands in games:
        write_game(
            store,
            game_id,
            name,
            players,
            seed=seed_for(game_id),
            commands=commands,
            on_append=publish,
        )
    assert projector.catch_up_once() > 0
    assert projector.reconcile() == 0
    reader = ProjectionReader(client, store, prefix)
    assert [g.game_id for g in reader.list_games().games] == ["x3", "x2", "x1"]
    assert reader.player_totals("Ann").games == 1
    assert reader.read_view("x2", 1, min_version=store.head("x2").version).projected
    live = dump_read_models(client, prefix)
    assert live == rebuilt_read_models(client, prefix)
