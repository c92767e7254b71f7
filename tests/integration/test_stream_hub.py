"""The stream hub (service/http/waits.py): many waiters, one reader, real Redis.

Threads stand in for greenlets (the hub only uses ``threading``). No timings are
asserted: a waiter either wakes (True) or reaches its generous timeout (False).
"""

from __future__ import annotations

import threading

import pytest
import redis

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


def test_woken_waiters_get_the_entries_after_their_own_version(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    hub = make_hub(redis_client, key_prefix)
    append(redis_client, key_prefix, "g", 1)
    got: dict[int, list[bytes] | None] = {}
    registered = threading.Barrier(3)

    def wait(after: int) -> None:
        registered.wait()
        entries = hub.wait_entries("g", after, GENEROUS_S)
        got[after] = None if entries is None else [entry_id for entry_id, _ in entries]

    # One waiter at version 1, one at 2 (its version 2 already appended below): the
    # hub's one XREAD starts at the lower, each takes only what follows its own.
    append(redis_client, key_prefix, "g", 2)
    threads = [threading.Thread(target=wait, args=(after,)) for after in (1, 2)]
    for thread in threads:
        thread.start()
    registered.wait()
    append(redis_client, key_prefix, "g", 3)
    for thread in threads:
        thread.join()
    assert got[1] is not None and got[1][0] == b"2-0" and got[1] == sorted(got[1])
    assert got[2] is not None and got[2][0] == b"3-0"
    assert hub.wait_entries("g", 3, 0.2) is None  # nothing after 3: timed out


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
