"""Under gevent a lane shares one connection among greenlets (``events.redis_adapter.multiplex``):
every caller gets its own replies and errors, calls of one turn go out in one write, and a
broken connection fails its calls and is replaced.

Each scenario runs in a child process that patches gevent in first, as an API worker does
(patching the test process itself would change every other test in it)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.flaky_proxy import FlakyProxy
from support.redis import TestRedis

ROOT = Path(__file__).resolve().parents[2]

PRELUDE = """
from gevent import monkey
monkey.patch_all()
import os, sys, gevent, redis
from redis.exceptions import ConnectionError, NoScriptError, ResponseError, TimeoutError
from events.redis_adapter.lane import lane_for
from events.redis_adapter.multiplex import Multiplexer
url, prefix = sys.argv[1], sys.argv[2]
client = redis.Redis.from_url(url)
lane = lane_for(client)
lane.execute("PING")
mux = lane._shared
assert isinstance(mux, Multiplexer), mux
"""


def run_under_gevent(
    redis_target: TestRedis, key_prefix: str, body: str, url: str | None = None,
    extra: list[str] | None = None,
) -> str:
    """Run ``body`` after :data:`PRELUDE` in a gevent-patched child; its output (asserts fail it)."""
    script = PRELUDE + textwrap.dedent(body)
    done = subprocess.run(
        [sys.executable, "-c", script, url or redis_target.url, key_prefix, *(extra or [])],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_many_greenlets_get_their_own_replies_in_fewer_writes(
    redis_target: TestRedis, key_prefix: str
) -> None:
    out = run_under_gevent(redis_target, key_prefix, """
        def player(i):
            for n in range(1, 201):
                assert lane.execute("INCR", f"{prefix}n{i}") == n
                got = lane.execute_many(("GET", f"{prefix}n{i}"), ("ECHO", f"g{i}"), ("PING",))
                assert got == [str(n).encode(), f"g{i}".encode(), b"PONG"], got
        before_calls, before_writes = mux.calls, mux.writes
        gevent.joinall([gevent.spawn(player, i) for i in range(16)], raise_error=True)
        calls, writes = mux.calls - before_calls, mux.writes - before_writes
        assert calls == 16 * 400, calls
        print(calls, writes)
        # One connection carried it all (the lane kept none of its own).
        assert lane._free == []
    """)
    calls, writes = map(int, out.split())
    assert writes < calls / 2, (calls, writes)  # 16 at a time: mostly written together


def test_an_error_reply_reaches_its_caller_only(redis_target: TestRedis, key_prefix: str) -> None:
    run_under_gevent(redis_target, key_prefix, """
        client.set(prefix + "s", "text")
        outcomes = {}
        def wrong():
            try:
                lane.execute_many(("HSET", prefix + "s", "f", "v"), ("GET", prefix + "s"))
            except ResponseError as error:
                outcomes["wrong"] = str(error)
        def unknown_script():
            try:
                lane.execute("EVALSHA", "0" * 40, 0)
            except NoScriptError:
                outcomes["noscript"] = True
        def right():
            outcomes["right"] = lane.execute_many(("GET", prefix + "s"), ("PING",))
        gevent.joinall([gevent.spawn(f) for f in (wrong, unknown_script, right, wrong)], raise_error=True)
        assert outcomes["wrong"].startswith("WRONGTYPE"), outcomes
        assert outcomes["noscript"] is True
        assert outcomes["right"] == [b"text", b"PONG"]
        assert lane.execute("GET", prefix + "s") == b"text"  # the connection stays in step
    """)


def test_a_connection_lost_mid_call_fails_its_calls_and_is_replaced(
    redis_target: TestRedis, key_prefix: str
) -> None:
    port = int(redis_target.url.rsplit(":", 1)[1].split("/")[0])
    # The first connection passes the handshake's two "+OK" replies, then is cut with
    # the first call's reply: four calls written together lose their answers.
    with FlakyProxy(port, lambda n: 10 if n == 0 else None) as proxy:
        run_under_gevent(redis_target, key_prefix, """
            from redis.backoff import NoBackoff
            from redis.retry import Retry
            proxied = lane_for(redis.Redis(port=int(sys.argv[3]), retry=Retry(NoBackoff(), 0)))
            outcomes = {}
            def call(i):
                try:
                    outcomes[i] = proxied.execute("ECHO", f"e{i}")
                except ConnectionError:
                    outcomes[i] = "failed"
            gevent.joinall([gevent.spawn(call, i) for i in range(4)], raise_error=True)
            # The first call's answer is lost; every other call fails or has its own
            # answer -- never another call's.
            assert outcomes[0] == "failed", outcomes
            assert all(outcomes[i] in ("failed", f"e{i}".encode()) for i in range(4)), outcomes
            assert proxied.execute("ECHO", "again") == b"again"  # a new connection
            assert proxied.execute_many(("PING",), ("ECHO", "x")) == [b"PONG", b"x"]
        """, extra=[str(proxy.port)])
        assert proxy.connections >= 2


def test_a_caller_killed_while_waiting_leaves_the_others_their_replies(
    redis_target: TestRedis, key_prefix: str
) -> None:
    run_under_gevent(redis_target, key_prefix, """
        def long_call():
            lane.execute("EVAL", "local t = redis.call('TIME') while true do "
                         "local n = redis.call('TIME') if (n[1] - t[1]) * 1e6 + n[2] - t[2] "
                         "> 100000 then return 'late' end end", 0)
        victim = gevent.spawn(long_call)
        gevent.sleep(0.02)
        after = [gevent.spawn(lane.execute, "ECHO", f"e{i}") for i in range(4)]
        victim.kill()  # its reply still comes, and must go to no one
        gevent.joinall(after, raise_error=True)
        assert [g.value for g in after] == [f"e{i}".encode() for i in range(4)]
        assert lane.execute("ECHO", "next") == b"next"
    """)


def test_a_read_timeout_fails_the_call_and_drops_the_connection(
    redis_target: TestRedis, key_prefix: str
) -> None:
    url = redis_target.url + ("&" if "?" in redis_target.url else "?") + "socket_timeout=0.2"
    run_under_gevent(redis_target, key_prefix, """
        mine = lane.execute("CLIENT", "ID")
        started = gevent.get_hub().loop.now()
        try:
            lane.execute("EVAL", "local t = redis.call('TIME') while true do "
                         "local n = redis.call('TIME') if (n[1] - t[1]) * 1e6 + n[2] - t[2] "
                         "> 600000 then return 1 end end", 0)
        except TimeoutError:
            pass
        else:
            raise AssertionError("no timeout")
        gevent.sleep(0.6)  # the script ends; its late reply went nowhere
        assert lane.execute("PING") == b"PONG"
        assert lane.execute("CLIENT", "ID") != mine
    """, url=url)


def test_a_forked_child_never_writes_on_the_parents_connection(
    redis_target: TestRedis, key_prefix: str
) -> None:
    run_under_gevent(redis_target, key_prefix, """
        parent_id = lane.execute("CLIENT", "ID")
        pid = os.fork()
        if pid == 0:
            code = 0 if lane.execute("CLIENT", "ID") != parent_id else 3
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert lane.execute("CLIENT", "ID") == parent_id  # the parent's is untouched
    """)


@pytest.mark.parametrize("blocking", [True, False])
def test_only_non_blocking_lanes_share(redis_target: TestRedis, key_prefix: str, blocking: bool) -> None:
    out = run_under_gevent(redis_target, key_prefix, f"""
        other = lane_for(redis.Redis.from_url(url), blocking={blocking})
        other.execute("PING")
        print(type(other._multiplexer()).__name__)
    """)
    assert out.strip() == ("NoneType" if blocking else "Multiplexer")  # no shared connection
