"""What the append's connection lane (``events.redis_adapter.lane``) saves, in one run.

    .venv/bin/python -m bench.lane_bench [--redis-url URL] [--rounds 9] [--events 2000]

Interleaved rounds, each running back to back, one client:

- ``RedisEventStore.append`` of one event per call, its script run through the lane
  (as the store does) and through redis-py's ``execute_command`` (``Script`` without
  a lane): µs per append and CPU per event (this process and Redis);
- a PING both ways: the round trip alone.

Reported as median (min-max) over the rounds. Without ``--redis-url`` a throwaway
redis-server is started; with one, only keys under a fresh prefix are written and
deleted afterwards.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial

import redis

from bench.redis_target import redis_cpu, redis_target
from bench.store_bench import WriteBench, sample_batches, split_singles, spread
from events.redis_adapter.lane import lane_for
from events.redis_adapter.scripts import APPEND, Script


def timed(client: redis.Redis, calls: int, fn: Callable[[], object]) -> tuple[float, float]:
    """(µs per call, CPU µs per call of this process and Redis) of ``fn``."""
    cpu, redis_before, start = time.process_time(), redis_cpu(client), time.perf_counter()
    fn()
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu + redis_cpu(client) - redis_before
    return 1e6 * wall / calls, 1e6 * cpu / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", help="use this server (keys under a fresh prefix)")
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds")
    parser.add_argument("--events", type=int, default=2000, help="appends per round and side")
    args = parser.parse_args()
    with redis_target(args.redis_url) as (client, _url, prefix):
        run(client, prefix, args)


def ping(call: Callable[[str], object], times: int) -> None:
    """``call("PING")``, ``times`` times."""
    for _ in range(times):
        call("PING")


def run(client: redis.Redis, prefix: str, args: argparse.Namespace) -> None:
    """The interleaved rounds and their report (see the module)."""
    singles = split_singles(sample_batches(args.events))[: args.events]
    lane = lane_for(client)
    ping_lane = lane_for(client)
    assert lane is not None and ping_lane is not None
    results: dict[str, list[tuple[float, float]]] = {}
    for round_number in range(args.rounds):
        for name, script_lane in (("execute_command", None), ("lane", lane)):
            bench = WriteBench(client, f"{prefix}{round_number}:", singles, 1)
            bench.store._append = Script(client, APPEND, script_lane)
            results.setdefault(f"append via {name}", []).append(
                timed(client, bench.events, partial(bench.ours, 0))
            )
        pings = (("execute_command", client.execute_command), ("lane", ping_lane.execute))
        for name, call in pings:
            results.setdefault(f"PING via {name}", []).append(
                timed(client, args.events, partial(ping, call, args.events))
            )
    print(f"median (min-max) of {args.rounds} rounds, 1 client")
    for name, values in results.items():
        print(
            f"{name:<26} {spread([v[0] for v in values])} µs/call, "
            f"CPU {spread([v[1] for v in values])} µs/call"
        )
    for what in ("append", "PING"):
        pairs = zip(results[f"{what} via execute_command"], results[f"{what} via lane"], strict=True)
        gains = [slow[0] - fast[0] for slow, fast in pairs]
        print(f"{what}: the lane saves {spread(gains)} µs/call (median of paired rounds)")


if __name__ == "__main__":
    main()
