"""The stream hub (service/http/waits.py): many waiters, one reader, real Redis.

Threads stand in for greenlets (the hub only uses ``threading``). No timings are
asserted: a waiter either wakes (True) or reaches its generous timeout (False).
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import pytest
import redis
from support.durable import durable_server

from events.redis_adapter.server import RedisServer
from service.http.problems import Problem
from service.http.waits import StreamHub, WaitSlots, hub_for

GENEROUS_S = 30.0


def make_hub(client: redis.Redis, prefix: str) -> StreamHub:
    hub = hub_for(client, lambda game_id: f"{prefix}{game_id}:events", prefix)
    assert hub is not None
    return hub


def append(client: redis.Redis, prefix: str, game_id: str, version: int) -> None:
    client.xadd(f"{prefix}{game_id}:events", {"e": "x"}, id=f"{version}-0")


def test_waiters_on_many_games_wake_when_their_game_moves(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    hub = make_hub(redis_client, key_prefix)
    for game in range(20):
        append(redis_client, key_prefix, f"g{game}", 1)
    results: dict[int, bool] = {}
    registered = threading.Barrier(21)

    def wait(game: int) -> None:
        registered.wait()
        results[game] = hub.wait(f"g{game}", 1, GENEROUS_S)

    threads = [threading.Thread(target=wait, args=(game,)) for game in range(20)]
    for thread in threads:
        thread.start()
    registered.wait()
    for game in range(20):
        append(redis_client, key_prefix, f"g{game}", 2)
    for thread in threads:
        thread.join()
    assert results == {game: True for game in range(20)}


def test_an_event_already_there_wakes_at_once_and_a_quiet_game_times_out(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    hub = make_hub(redis_client, key_prefix)
    append(redis_client, key_prefix, "busy", 1)
    append(redis_client, key_prefix, "busy", 2)
    append(redis_client, key_prefix, "quiet", 1)
    # Appended before the wait began (between a caller's read and its wait): found.
    assert hub.wait("busy", 1, GENEROUS_S) is True
    assert hub.wait("quiet", 1, 0.2) is False
    assert hub.waiting() == 0


def test_only_waiters_behind_the_new_version_wake(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    hub = make_hub(redis_client, key_prefix)
    append(redis_client, key_prefix, "g", 1)
    behind = threading.Thread(target=lambda: out.append(hub.wait("g", 1, GENEROUS_S)))
    out: list[bool] = []
    behind.start()
    append(redis_client, key_prefix, "g", 2)
    behind.join()
    assert out == [True]
    # A waiter already at version 2 keeps waiting until version 3 (or its timeout).
    assert hub.wait("g", 2, 0.3) is False


def test_waiters_at_different_versions_of_one_stream_each_wake_once_it_passes_them(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    # The hub's XREAD reads one entry per stream, after the lowest version waited on:
    # a waiter further along is named by the next XREAD, not forgotten.
    hub = make_hub(redis_client, key_prefix)
    assert hub._lane is not None  # its XREAD runs on a kept connection, replies as read
    for version in (1, 2, 3):
        append(redis_client, key_prefix, "g", version)
    assert hub.wait("g", 1, GENEROUS_S) is True
    assert hub.wait("g", 2, GENEROUS_S) is True
    woke: dict[int, bool] = {}
    waiters = [
        threading.Thread(target=lambda a=after: woke.__setitem__(a, hub.wait("g", a, GENEROUS_S)))
        for after in (3, 4)
    ]
    for waiter in waiters:
        waiter.start()
    while hub.waiting() < 2:
        time.sleep(0.01)
    append(redis_client, key_prefix, "g", 4)
    waiters[0].join()
    assert woke == {3: True}  # the one at 4 waits on
    append(redis_client, key_prefix, "g", 5)
    waiters[1].join()
    assert woke == {3: True, 4: True}
    assert hub.wait("g", 5, 0.2) is False  # nothing after 5: timed out


def test_no_wake_up_is_lost_or_early(redis_client: redis.Redis, key_prefix: str) -> None:
    """Waiters join at random versions while the stream grows: each one wakes, and only
    once its stream holds an entry after its version."""
    hub = make_hub(redis_client, key_prefix)
    key = f"{key_prefix}g:events"
    append(redis_client, key_prefix, "g", 1)
    pick = random.Random(16)
    appended = [1]
    bad: list[tuple[int, bool, int]] = []

    def wait(after: int) -> None:
        woke = hub.wait("g", after, GENEROUS_S)
        length = redis_client.xlen(key)  # every version up to it is there: no gaps
        if not woke or length <= after:
            bad.append((after, woke, length))

    waiters = []
    for version in range(2, 60):
        for _ in range(3):
            waiter = threading.Thread(target=wait, args=(pick.randint(1, appended[0]),))
            waiter.start()
            waiters.append(waiter)
        append(redis_client, key_prefix, "g", version)
        appended[0] = version
    for waiter in waiters:
        waiter.join()
    assert bad == []
    assert hub.waiting() == 0


def test_a_cluster_client_gets_no_hub() -> None:
    assert hub_for(object(), lambda game_id: game_id, "p:") is None


def test_slots_cap_per_client_and_per_process() -> None:
    slots = WaitSlots(per_client=2, per_process=3)
    slots.acquire("a")
    slots.acquire("a")
    with pytest.raises(Problem) as refused:
        slots.acquire("a")
    assert (refused.value.status, refused.value.code) == (429, "too_many_streams")
    slots.acquire("b")
    with pytest.raises(Problem) as busy:
        slots.acquire("c")
    assert (busy.value.status, busy.value.code) == (503, "server_busy")
    slots.release("a")
    slots.acquire("c")
    assert slots.total == 3


def test_the_hub_survives_redis_dying_under_its_read(tmp_path: Path) -> None:
    # Its blocking XREAD runs on a kept connection (a lane): a crash of Redis wakes
    # every waiter to read for itself, and once Redis is back the hub delivers again.
    server = durable_server(tmp_path)
    restarted = None
    try:
        client = server.client()
        hub = make_hub(client, "crash:")
        append(client, "crash:", "g", 1)
        got: list[bool] = []
        waiter = threading.Thread(target=lambda: got.append(hub.wait("g", 1, GENEROUS_S)))
        waiter.start()
        while not hub._inflight:  # its XREAD names the waiter's stream
            time.sleep(0.01)
        server.kill()
        waiter.join(GENEROUS_S)
        assert got == [True]  # woken (spuriously): it reads for itself
        restarted = RedisServer(directory=tmp_path, port=server.port, config=server.config).start()
        append(client, "crash:", "g", 2)
        assert hub.wait("g", 1, GENEROUS_S) is True
        client.close()
    finally:
        (restarted or server).close()
