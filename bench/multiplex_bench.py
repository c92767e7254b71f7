"""What the shared connection of gevent workers (``events.redis_adapter.multiplex``) saves.

    .venv/bin/python -m bench.multiplex_bench [--redis-url URL] [--rounds 5] [--calls 1000]
                                              [--greenlets 1 8]

gevent is patched in first, as in an API worker. For each greenlet count, interleaved
rounds run the same calls (an ``INCR`` and a two-command read per step, as the store's
appends and reads are one and two commands) on a lane that shares one connection and on
a lane of kept connections of its own (the path of sync processes): client CPU per call
(this process) and Redis CPU per call, median (min-max) over the rounds, and how many
calls one write carried. Without ``--redis-url`` a throwaway redis-server is started;
with one, only keys under a fresh prefix are written and deleted afterwards.
"""

from gevent import monkey

monkey.patch_all()  # before anything opens a socket, as service.runner does in a worker

import argparse  # noqa: E402
import time  # noqa: E402

import gevent  # noqa: E402
import redis  # noqa: E402

from bench.redis_target import redis_cpu, redis_target  # noqa: E402
from bench.store_bench import spread  # noqa: E402
from events.redis_adapter.lane import Lane, lane_for  # noqa: E402
from events.redis_adapter.multiplex import Multiplexer  # noqa: E402


def steps(lane: Lane, key: str, calls: int) -> None:
    for _ in range(calls // 2):
        lane.execute("INCR", key)
        lane.execute_many(("GET", key), ("PING",))


def measured(client: redis.Redis, lane: Lane, prefix: str, greenlets: int, calls: int) -> tuple[float, float]:
    """(client CPU µs per call, Redis CPU µs per call) of ``greenlets`` running ``calls`` each."""
    cpu, redis_before = time.process_time(), redis_cpu(client)
    gevent.joinall(
        [gevent.spawn(steps, lane, f"{prefix}{i}", calls) for i in range(greenlets)], raise_error=True
    )
    total = greenlets * (calls // 2 * 2)
    return (
        1e6 * (time.process_time() - cpu) / total,
        1e6 * (redis_cpu(client) - redis_before) / total,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", help="use this server (keys under a fresh prefix)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds")
    parser.add_argument("--calls", type=int, default=1000, help="calls per greenlet and round")
    parser.add_argument("--greenlets", type=int, nargs="+", default=[1, 8])
    args = parser.parse_args()
    with redis_target(args.redis_url) as (client, _url, prefix):
        shared, own = lane_for(client), lane_for(client, blocking=True)  # blocking: never shared
        assert shared is not None and own is not None
        shared.execute("PING")
        mux = shared._multiplexer()
        assert isinstance(mux, Multiplexer)
        for count in args.greenlets:
            results: dict[str, list[tuple[float, float]]] = {"shared": [], "own": []}
            calls_before, writes_before = mux.calls, mux.writes
            for _ in range(args.rounds):
                for name, lane in (("shared", shared), ("own", own)):
                    results[name].append(measured(client, lane, prefix, count, args.calls))
            per_write = (mux.calls - calls_before) / max(mux.writes - writes_before, 1)
            print(f"{count} greenlet(s), median (min-max) of {args.rounds} rounds:")
            for name, values in results.items():
                print(f"  {name:<7} client CPU {spread([v[0] for v in values])} µs/call, "
                      f"Redis CPU {spread([v[1] for v in values])} µs/call")
            print(f"  shared: {per_write:.2f} calls per write")


if __name__ == "__main__":
    main()
