"""What the OS lock (``service.locks``) and the settled-token check save a play request, under gevent.

    .venv/bin/python -m bench.locks_bench [--rounds 9] [--calls 100000]

This process patches gevent in first, as an API worker does, then runs interleaved
rounds of:

- ``with lock: pass`` on gevent's patched ``threading.Lock`` and on
  ``service.locks.section_lock()``;
- ``RateLimiter.hit`` while a lease is in hand (the path nearly every request takes),
  its lock one or the other; the lease comes from a throwaway redis-server;
- the settled token's check (``service.http.auth``): SHA-256 of the token compared in
  constant time with the seat's stored hash (before), or the stored hash compared
  with the one remembered when the token was verified (now).

µs per call, median (min-max) over the rounds. The protocol bench
(``bench/protocol_bench.py``) measures the whole request; these figures say where a
part of it went (``docs/bench-rounds.md``, *Twelfth round*).
"""

from __future__ import annotations

from gevent import monkey

monkey.patch_all()

import argparse  # noqa: E402
import hmac  # noqa: E402
import statistics  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

from bench.redis_target import redis_target  # noqa: E402
from service.http.ratelimit import RateLimiter  # noqa: E402
from service.locks import section_lock  # noqa: E402
from service.tokens import new_token, token_hash  # noqa: E402


def per_call(calls: int, fn: Callable[[], object]) -> float:
    """µs per call of ``fn``."""
    started = time.perf_counter()
    for _ in range(calls):
        fn()
    return 1e6 * (time.perf_counter() - started) / calls


def leased(limiter: RateLimiter, bucket: str, chunks: int) -> float:
    """µs per ``hit`` served from a lease in hand: chunks of 30 calls (a lease holds at
    most ``MAX_LEASE`` = 32), the lease taken again between chunks, untimed."""
    spent, calls = 0.0, 0
    for _ in range(chunks):
        limiter._leases.clear()
        limiter.hit(bucket)  # a lease of 1
        limiter.hit(bucket)  # a full one: the next 30 come from it
        started = time.perf_counter()
        for _ in range(30):
            limiter.hit(bucket)
        spent += time.perf_counter() - started
        calls += 30
    return 1e6 * spent / calls


def hold(lock: object) -> Callable[[], None]:
    def fn() -> None:
        with lock:  # type: ignore[attr-defined]
            pass

    return fn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--calls", type=int, default=100_000)
    args = parser.parse_args()
    token = new_token("g1", 0)
    stored = token_hash(token)
    remembered = token_hash(token)  # an equal string, not the same object
    with redis_target(None) as (client, _, prefix):
        limiters = {}
        for name, lock in (("gevent", threading.Lock()), ("os", section_lock())):
            limiter = RateLimiter(client, prefix, per_minute=10**9)
            limiter._lock = lock  # the one difference between the two
            limiters[name] = limiter
        cases: dict[str, Callable[[], float]] = {
            "lock: gevent's threading.Lock": lambda: per_call(args.calls, hold(threading.Lock())),
            "lock: service.locks.section_lock": lambda: per_call(args.calls, hold(section_lock())),
            "RateLimiter.hit, gevent's lock": lambda: leased(limiters["gevent"], "gevent", 300),
            "RateLimiter.hit, the OS lock": lambda: leased(limiters["os"], "os", 300),
            "settled check: SHA-256 + compare_digest": lambda: per_call(
                args.calls, lambda: hmac.compare_digest(token_hash(token), stored)
            ),
            "settled check: stored == remembered": lambda: per_call(args.calls, lambda: stored == remembered),
        }
        results: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.rounds):
            for name, measure in cases.items():
                results[name].append(measure())
    print(f"µs per call, median (min-max) over {args.rounds} rounds (gevent patched in)")
    for name, values in results.items():
        print(f"  {name:<42} {statistics.median(values):7.3f} ({min(values):.3f}-{max(values):.3f})")


if __name__ == "__main__":
    main()
