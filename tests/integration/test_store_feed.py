"""The feed published inside the append script (standalone Redis): one entry per
successful append, none for a refused one, and no second entry from the notifier."""

from __future__ import annotations

import pytest
import redis
from support.cluster import LocalCluster
from support.redis import TestRedis

from engine.table import seat_left
from events.model.envelope import SYSTEM
from events.model.errors import VersionConflict
from events.model.port import GameRef
from events.redis_adapter import feed
from events.redis_adapter.store import RedisEventStore
from service.app.application import NoNotifier
from service.app.errors import StaleVersion
from service.bootstrap import build
from service.settings import Settings

pytestmark = pytest.mark.store

SHARDS = 3


def feed_versions(client: redis.Redis, prefix: str, game_id: str, shards: int = SHARDS) -> list[int]:
    entries = client.xrange(feed.feed_key(prefix, feed.shard_of(game_id, shards)))
    assert all(fields[b"g"] == game_id.encode() for _, fields in entries)
    return [int(fields[b"v"]) for _, fields in entries]


def test_every_append_publishes_its_version_and_a_refused_one_nothing(
    redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(feed.FEED_SHARDS_ENV, str(SHARDS))
    services = build(Settings(redis_url=redis_target.url, key_prefix=key_prefix), client=redis_client)
    assert services.store.publishes_feed
    app = services.app
    game_id = app.create_game("schlitzohr", {}, [None, None])["game_id"]
    tokens = [app.join(game_id, f"p{i}").token for i in range(2)]
    view = app.queries.view(game_id, 0)
    legal = app.queries.legal(game_id, 0)["commands"]
    outcome = app.submit(game_id, tokens[0], legal[0], view["version"])
    with pytest.raises(StaleVersion):
        app.submit(game_id, tokens[1], legal[0], view["version"])
    with pytest.raises(VersionConflict):  # refused by the script itself: no entry either
        app.store.append(GameRef(game_id, "schlitzohr"), [seat_left(0)], 1, actor=SYSTEM)
    # One entry per batch (create; join; join + PlayStarted; the command), each naming
    # the version the batch ended at.
    start = view["version"]
    assert feed_versions(redis_client, key_prefix, game_id) == [
        start - 3, start - 2, start, outcome["version"]
    ]


def test_a_store_without_feed_shards_publishes_nothing(
    redis_client: redis.Redis, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(feed.FEED_SHARDS_ENV, str(SHARDS))
    settings = Settings(redis_url="redis://unused", key_prefix=key_prefix)
    services = build(settings, notifier=NoNotifier(), client=redis_client)
    assert not services.store.publishes_feed
    game_id = services.app.create_game("schlitzohr", {}, [None, None])["game_id"]
    assert feed_versions(redis_client, key_prefix, game_id) == []


def test_feed_shards_are_refused_on_a_cluster_and_when_not_positive(
    local_cluster: LocalCluster, redis_client: redis.Redis
) -> None:
    client = local_cluster.client()
    try:
        with pytest.raises(ValueError):
            RedisEventStore(client, prefix="x:", feed_shards=4)
        assert not build(Settings(key_prefix="x:"), client=client).store.publishes_feed
    finally:
        client.close()
    with pytest.raises(ValueError):
        RedisEventStore(redis_client, prefix="x:", feed_shards=0)
