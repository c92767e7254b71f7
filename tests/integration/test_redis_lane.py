"""The append's connection lane answers exactly as ``execute_command`` would, and never
uses a connection that is not clean (``events.redis_adapter.lane``)."""

from __future__ import annotations

import gc
import os
import select
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import redis
from support.redis import TestRedis

from events.redis_adapter.lane import LANE_SIZE, Lane, lane_for
from events.redis_adapter.store import RedisEventStore


def in_use(client: redis.Redis) -> int:
    return len(client.connection_pool._in_use_connections)


@pytest.fixture
def lane(redis_client: redis.Redis) -> Lane:
    """A lane on the test's plain client (``redis_client`` is the same client)."""
    made = lane_for(redis_client)
    assert made is not None
    return made


def test_a_lane_only_for_a_plain_client_on_a_plain_pool(redis_target: TestRedis) -> None:
    plain = redis_target.client()
    assert isinstance(lane_for(plain), Lane)
    blocking = redis.Redis(connection_pool=redis.BlockingConnectionPool.from_url(redis_target.url))
    single = redis_target.client(single_connection_client=True)

    class Custom(redis.Redis):
        pass

    custom = Custom.from_url(redis_target.url)
    parsed = redis_target.client()
    parsed.set_response_callback("EVALSHA", lambda reply: reply)  # the lane would skip it
    for client in (blocking, single, custom, parsed, object()):
        assert lane_for(client) is None
    for client in (plain, blocking, single, custom, parsed):
        client.close()


def test_replies_and_error_replies_are_those_of_execute_command(
    lane: Lane, redis_client: redis.Redis, key_prefix: str
) -> None:
    key = key_prefix + "k"
    redis_client.set(key, "v")
    script = "return {KEYS[1], ARGV[1], 7, redis.call('GET', KEYS[1])}"
    sha = redis_client.script_load(script)
    for command in (("EVALSHA", sha, 1, key, "é"), ("GET", key), ("ECHO", b"\x00\xff")):
        assert lane.execute(*command) == redis_client.execute_command(*command)
    with pytest.raises(redis.ResponseError):
        lane.execute("INCR", key)  # not an integer
    with pytest.raises(redis.exceptions.NoScriptError):
        lane.execute("EVALSHA", "0" * 40, 0)
    # An error reply is read whole: the connection stays on the lane, and in sync.
    assert len(lane._free) == 1
    assert lane.execute("ECHO", "after") == b"after"


def test_several_commands_in_one_round_trip_reply_as_each_would_alone(
    lane: Lane, redis_client: redis.Redis, key_prefix: str
) -> None:
    stream, head = key_prefix + "s", key_prefix + "h"
    redis_client.xadd(stream, {"e": "one"}, id="1-0")
    redis_client.xadd(stream, {"e": "two"}, id="2-0")
    redis_client.hset(head, "v", 2)
    commands = [
        ("XRANGE", stream, "2-0", "+", "COUNT", 100),
        ("HMGET", head, "v", "e"),
        ("ECHO", b"\x00\xff"),
    ]
    replies = lane.execute_many(*commands)
    assert replies == [lane.execute(*command) for command in commands]
    assert replies == [[[b"2-0", [b"e", b"two"]]], [b"2", None], b"\x00\xff"]  # as read
    assert len(lane._free) == 1  # one connection for all of them


def test_an_error_reply_among_several_is_raised_once_all_are_read(
    lane: Lane, redis_client: redis.Redis, key_prefix: str
) -> None:
    key = key_prefix + "k"
    redis_client.set(key, "v")
    with pytest.raises(redis.ResponseError):
        lane.execute_many(("GET", key), ("INCR", key), ("ECHO", "third"))
    # Every reply was read: the connection stays on the lane, and in sync.
    assert len(lane._free) == 1
    assert lane.execute_many(("ECHO", "a"), ("ECHO", "b")) == [b"a", b"b"]


def test_several_commands_after_the_server_closed_the_connection(
    lane: Lane, redis_client: redis.Redis
) -> None:
    first = lane.execute("CLIENT", "ID")
    redis_client.client_kill_filter(_id=first)
    assert lane.execute_many(("ECHO", "x"), ("CLIENT", "ID"))[1] != first


def test_a_connection_the_server_closed_is_replaced_before_use(
    lane: Lane, redis_client: redis.Redis
) -> None:
    first = lane.execute("CLIENT", "ID")
    redis_client.client_kill_filter(_id=first)
    assert lane.execute("ECHO", "x") == b"x"
    assert lane.execute("CLIENT", "ID") != first


def test_unread_data_on_a_kept_connection_is_never_taken_for_a_reply(lane: Lane) -> None:
    lane.execute("PING")
    kept = lane._free[0]
    kept.send_command("ECHO", "stale")  # a reply nobody reads
    waiting = select.poll()
    waiting.register(kept._sock, select.POLLIN)
    assert waiting.poll(5000)  # it has arrived (on the socket, not yet read)
    assert lane.execute("ECHO", "fresh") == b"fresh"


def test_after_a_failed_call_the_connection_goes_back_to_the_pool(
    redis_target: TestRedis, key_prefix: str
) -> None:
    client = redis_target.client(socket_timeout=0.2)
    lane = lane_for(client)
    assert lane is not None
    with pytest.raises(redis.TimeoutError):
        lane.execute("BLPOP", key_prefix + "empty", 2)  # the reply comes after the timeout
    assert lane._free == [] and in_use(client) == 0
    with pytest.raises(redis.TimeoutError):  # the same among several commands
        lane.execute_many(("ECHO", "first"), ("BLPOP", key_prefix + "empty", 2))
    assert lane._free == [] and in_use(client) == 0
    with pytest.raises(redis.DataError):
        lane.execute("SET", key_prefix + "k", object())  # cannot be packed: never sent
    assert lane._free == [] and in_use(client) == 0
    assert lane.execute("ECHO", "x") == b"x"
    client.close()


def test_concurrent_calls_each_get_a_connection_of_their_own(
    lane: Lane, redis_client: redis.Redis, key_prefix: str
) -> None:
    key, threads, calls = key_prefix + "n", 8, 200
    barrier = threading.Barrier(threads)

    def work() -> None:
        barrier.wait()
        for _ in range(calls):
            lane.execute("INCR", key)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert int(redis_client.get(key)) == threads * calls
    assert 1 <= len(lane._free) <= min(threads, LANE_SIZE)


def test_a_dropped_lane_gives_its_connections_back(redis_target: TestRedis) -> None:
    client = redis_target.client()
    store = RedisEventStore(client, prefix="unused:")
    store._append._run("PING")  # the store's lane keeps one connection
    assert in_use(client) == 1
    del store
    gc.collect()
    assert in_use(client) == 0
    client.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_never_uses_its_parents_connections(lane: Lane) -> None:
    parent_id = lane.execute("CLIENT", "ID")
    pid = os.fork()
    if pid == 0:  # the child: a connection of its own, the parent's untouched
        try:
            ok = lane._free == [] and lane.execute("CLIENT", "ID") != parent_id
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert lane.execute("CLIENT", "ID") == parent_id


def test_the_store_appends_and_reads_through_one_lane_and_snapshots_without(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    store = RedisEventStore(redis_client, prefix=key_prefix)
    assert isinstance(store._lane, Lane)
    assert getattr(store._append._run, "__self__", None) is store._lane
    redis_client.xadd(store.keys("g1").events, {"e": "{}"}, id="1-0")
    store._xrange_and_head(store.keys("g1"), "-", "+")
    assert len(store._lane._free) == 1  # the read ran on the lane
    assert store._save_snapshot._run == redis_client.execute_command


def test_under_gevent_the_check_uses_the_systems_poll() -> None:
    # gevent's patched poll is cooperative and slow; a zero-timeout poll never blocks.
    code = (
        "from gevent import monkey; monkey.patch_all()\n"
        "import select\n"
        "from events.redis_adapter.lane import _unpatched_poll\n"
        "assert select.poll is not monkey.get_original('select', 'poll')\n"
        "assert _unpatched_poll() is monkey.get_original('select', 'poll')\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=root, timeout=60)

