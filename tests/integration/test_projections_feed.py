"""The notification feed and what the projector does when it fails: lost, trimmed or
malformed notifications, and dead consumers."""

from __future__ import annotations

import pytest
import redis
from support.histories import seed_for, write_game

from events.projections import ProjectionReader
from events.redis_adapter import feed
from events.redis_adapter.store import RedisEventStore
from workers.projector import Projector

pytestmark = pytest.mark.store

SHARDS = 4


def test_shards_are_stable_and_every_shard_is_its_own_key(key_prefix: str) -> None:
    # CRC-32, not Python's salted hash(): the same in every process and on every machine.
    assert [feed.shard_of(g, 4) for g in ("a", "b", "game-1", "XyZ")] == [3, 1, 0, 3]
    assert feed.feed_key(key_prefix, 2) == f"{key_prefix}feed:{{2}}"
    with pytest.raises(ValueError):
        feed.feed_key("bad{prefix", 0)


def test_publish_writes_game_and_version_to_the_games_shard(
    redis_client: redis.Redis, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(feed.FEED_SHARDS_ENV, "3")
    feed.publish(redis_client, key_prefix, "game-1", 7)
    entries = redis_client.xrange(feed.feed_key(key_prefix, feed.shard_of("game-1", 3)))
    assert entries is not None
    assert [fields for _, fields in entries] == [{b"g": b"game-1", b"v": b"7"}]
    with pytest.raises(ValueError):
        feed.publish(redis_client, key_prefix, "no spaces", 1)
    monkeypatch.setenv(feed.FEED_SHARDS_ENV, "0")
    with pytest.raises(ValueError):
        feed.shards_from_env()


def test_reconciliation_projects_games_whose_notification_was_lost(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str
) -> None:
    written = write_game(
        store, "lost", "abluxxen", [("Ann", None), ("Bob", None)], seed=seed_for("lost"), commands=3
    )
    projector = Projector(redis_client, key_prefix, shards=SHARDS, consumer="c")
    assert projector.catch_up_once() == 0  # nothing was published
    assert projector.reconcile() == 1
    assert projector.reconcile() == 0
    view = ProjectionReader(redis_client, store, key_prefix).read_view("lost", 0)
    assert (view.version, view.projected) == (written.version, True)


def test_unusable_entries_are_acknowledged_and_skipped(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str
) -> None:
    projector = Projector(redis_client, key_prefix, shards=1, consumer="c")
    key = feed.feed_key(key_prefix, 0)
    redis_client.xadd(key, {"g": "x", "v": "not a number"})
    redis_client.xadd(key, {"g": "not a valid id!", "v": "3"})
    redis_client.xadd(key, {"g": "unknown-game", "v": "3"})
    # Read but never acknowledged, then deleted: a pending entry without content.
    gone = redis_client.xadd(key, {"g": "x", "v": "1"})
    redis_client.xreadgroup(feed.GROUP, "dead", {key: ">"})
    redis_client.xdel(key, gone)
    fresh = Projector(redis_client, key_prefix, shards=1, consumer="c2", claim_idle_ms=0)
    # Three new entries, plus the deleted one where Redis 6.2 still lists it as pending
    # (7.0 drops deleted entries from the pending list when XAUTOCLAIM meets them).
    assert fresh.catch_up_once() in (3, 4)
    assert redis_client.xpending(key, feed.GROUP)["pending"] == 0
    assert projector.applied == fresh.applied == 0


def test_dead_consumers_without_pending_entries_are_pruned(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    consumer = feed.FeedConsumer(redis_client, key_prefix, shards=2, consumer="alive")
    consumer.ensure_groups()
    consumer.ensure_groups()  # idempotent
    redis_client.xgroup_createconsumer(consumer.keys[0], feed.GROUP, "dead")
    redis_client.xgroup_createconsumer(consumer.keys[1], feed.GROUP, "alive")
    assert consumer.prune(idle_ms=-1) == 1  # never itself
    names = [
        [c["name"] for c in redis_client.xinfo_consumers(key, feed.GROUP)] for key in consumer.keys
    ]
    assert names == [[], [b"alive"]]
