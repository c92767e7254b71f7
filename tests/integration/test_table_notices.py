"""Append notices keep other processes' table caches current (``events.notices``)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from engine.registry import get_game
from events.loading import load_table
from events.notices import NoticeListener, channel, parse
from events.redaction import ADMIN
from events.redis_store import RedisEventStore
from events.upcasting import default_upcasters
from service.app.application import Application
from service.app.errors import StaleVersion


def wait_until(condition: Any, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


class CountingStore(RedisEventStore):
    """A store that counts its event reads."""

    reads = 0

    def read_range(self, *args: Any, **kwargs: Any) -> Any:
        self.reads += 1
        return super().read_range(*args, **kwargs)


@pytest.fixture
def processes(redis_client: redis.Redis, key_prefix: str) -> Iterator[tuple[Application, Application]]:
    """Two API processes' applications on one Redis; the second follows the notices."""
    writer = Application(RedisEventStore(redis_client, prefix=key_prefix, notices=True))
    follower = Application(CountingStore(redis_client, prefix=key_prefix, notices=True))
    listener = follower.tables.follow()
    listener.ensure_running()
    assert listener.subscribed.wait(10)
    yield writer, follower
    listener.stop()


def legal_command(app: Application, game_id: str) -> tuple[int, dict[str, Any], int]:
    view = app.queries.view(game_id, None)
    seat = int(min(view["to_act"], key=int))
    return seat, app.queries.legal(game_id, seat)["commands"][0], view["version"]


def test_a_command_elsewhere_reaches_this_cache_and_the_next_command_reads_nothing(
    processes: tuple[Application, Application],
) -> None:
    writer, follower = processes
    game_id = writer.create_game("schlitzohr", {}, [None, None])["game_id"]
    tokens = [writer.join(game_id, f"p{i}").token for i in range(2)]
    follower.tables.load(game_id)  # this process has seen the game once
    for _ in range(5):
        seat, command, version = legal_command(writer, game_id)
        after = writer.submit(game_id, tokens[seat], command, version)["version"]
        wait_until(lambda: follower.tables.cached(game_id).version == after)  # type: ignore[union-attr]
        fresh = load_table(writer.store, get_game("schlitzohr"), game_id).table
        assert follower.tables.cached(game_id) == fresh  # the fold equals a full read
        seat, command, version = legal_command(writer, game_id)
        store: CountingStore = follower.store  # type: ignore[assignment]
        reads = store.reads
        follower.submit(game_id, tokens[seat], command, version)
        assert store.reads == reads  # decided on the warmed cache: no read on the command path


def test_a_notice_that_does_not_continue_the_cache_is_ignored(
    processes: tuple[Application, Application],
) -> None:
    writer, follower = processes
    game_id = writer.create_game("abluxxen", {}, [None, None])["game_id"]
    follower.tables.load(game_id)
    writer.join(game_id, "p0")
    head = writer.store.head(game_id).version
    wait_until(lambda: follower.tables.cached(game_id).version == head)  # type: ignore[union-attr]
    before = follower.tables.cached(game_id)
    past = writer.store.read_range(game_id, ADMIN, 2)  # versions the cache holds already
    gap = [dataclasses.replace(past[-1], version=head + 2)]  # one version missing
    for envelopes in (past, gap, []):
        follower.tables.apply(game_id, envelopes)
        assert follower.tables.cached(game_id) is before
    follower.tables.apply("unknown-game", past)
    assert follower.tables.cached("unknown-game") is None


def test_without_notices_a_stale_cache_still_reads_before_deciding(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    writer = Application(RedisEventStore(redis_client, prefix=key_prefix))
    other = Application(RedisEventStore(redis_client, prefix=key_prefix))
    game_id = writer.create_game("schlitzohr", {}, [None, None])["game_id"]
    other.tables.load(game_id)
    tokens = [writer.join(game_id, f"p{i}").token for i in range(2)]
    seat, command, version = legal_command(writer, game_id)
    assert other.tables.cached(game_id).version < version  # type: ignore[union-attr]
    other.submit(game_id, tokens[seat], command, version)  # reads, then decides: accepted
    with pytest.raises(StaleVersion):
        writer.submit(game_id, tokens[seat], command, version)


def test_the_listener_resubscribes_after_its_connection_is_killed(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    heard: list[str] = []
    listener = NoticeListener(redis_client, key_prefix, default_upcasters(), lambda g, e: heard.append(g))
    listener.ensure_running()
    try:
        assert listener.subscribed.wait(10)
        redis_client.client_kill_filter(_type="pubsub")
        listener.subscribed.clear()
        assert listener.subscribed.wait(10)  # back, after a pause
        store = RedisEventStore(redis_client, prefix=key_prefix, notices=True)
        app = Application(store)
        game_id = app.create_game("schlitzohr", {}, [None, None])["game_id"]
        wait_until(lambda: game_id in heard)
        redis_client.publish(channel(key_prefix), b"not a notice")  # logged and skipped
        app.join(game_id, "p0")
        wait_until(lambda: heard.count(game_id) == 2)
    finally:
        listener.stop()


def test_parse_refuses_what_is_not_a_batch() -> None:
    upcasters = default_upcasters()
    for bad in [b"", b"g 1", b"g x\n{}", b"no-header\n{}"]:
        with pytest.raises((ValueError, KeyError, TypeError)):
            parse(bad, upcasters)
