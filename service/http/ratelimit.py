"""Rate limits shared by every API process: a sliding-window counter in Redis, leased.

Each bucket (a token's hash, or a client address without a token; see
``auth.rate_limit_bucket``) counts requests per fixed minute in one Redis key; the
estimate over the last 60 s is ``current + previous * (1 - elapsed fraction)``
(the "sliding window counter": no burst of twice the limit at a minute's edge, and
constant memory). A refused request still counts: hammering does not reopen the window.

Leases: asking Redis on every request would cost the command path a round trip. So
a process counts a *lease* of ``n`` requests at once (INCRBY n, in one pipelined
round trip with EXPIRE and the previous minute's GET) and serves the next requests
of that bucket from it, in memory, until it is used up or the minute ends. ``n``
shrinks as the bucket nears its limit -- a quarter of the headroom the process last
saw, at most ``MAX_LEASE`` -- and is 1 near the limit and for a bucket the process
has not seen this minute, so the limit is never exceeded (every request served was
counted in Redis first) and a client is refused early only by the unused leases
other processes hold, which shrink to nothing as the limit nears.

Keys (documented in ``events/keys.py``): ``<p>ratelimit:{<bucket>}:<minute>``, a
counter that expires after two minutes. The hash tag keeps both minutes of a
bucket in one Redis Cluster slot.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, request

from events.keys import prefixed
from service.http import metrics
from service.http.auth import rate_limit_bucket
from service.http.problems import Problem

WINDOW_S = 60
"""Length of one counting window (the limit is per minute)."""

EXEMPT_PREFIXES = ("/healthz", "/readyz", "/metrics")
"""Paths that are never limited (probes and scrapers)."""

EXTENSION = "tabletop.ratelimit"

MAX_LEASE = 32
"""Most requests one process counts at once for a bucket."""

MAX_BUCKETS = 10_000
"""Buckets whose leases a process keeps (all are dropped past this: a lease is a cache)."""


@dataclass(slots=True)
class Lease:
    """Requests of one bucket this process has counted in Redis but not yet served."""

    window: int
    left: int
    headroom: float
    """Requests the bucket had left when this lease was taken: sizes the next lease."""


class RateLimiter:
    """Counts requests per bucket in Redis, through leases (see the module docstring).
    Thread-safe: leases are taken and spent under a lock, Redis is asked outside it."""

    def __init__(
        self, client: Any, prefix: str, per_minute: int, clock: Callable[[], float] = time.time
    ) -> None:
        self._redis = client
        self._prefix = prefix
        self.per_minute = per_minute
        self._clock = clock
        self._leases: dict[str, Lease] = {}
        self._lock = threading.Lock()

    def key(self, bucket: str, window: int) -> str:
        return prefixed(self._prefix, f"ratelimit:{{{bucket}}}:{window}")

    def hit(self, bucket: str) -> float | None:
        """Count one request of ``bucket``; None if allowed, else seconds until it would be."""
        if self.per_minute <= 0:
            return None
        window_f, elapsed = divmod(self._clock(), WINDOW_S)
        window = int(window_f)
        with self._lock:
            lease = self._leases.get(bucket)
            if lease is not None and lease.window == window and lease.left > 0:
                lease.left -= 1
                return None
            size = lease_size(lease.headroom) if lease is not None and lease.window == window else 1
        current, previous = self._count(bucket, window, size)
        estimate = current + previous * (1 - elapsed / WINDOW_S)
        # Of the ``size`` requests just counted, those that fit under the limit may be
        # served: this one now, the rest from the lease.
        fits = min(size, math.floor(self.per_minute - estimate + size))
        with self._lock:
            if len(self._leases) >= MAX_BUCKETS:
                self._leases.clear()
            self._leases[bucket] = Lease(window, max(fits - 1, 0), self.per_minute - estimate)
        if fits >= 1:
            return None
        return retry_after(self.per_minute, current, previous, elapsed)

    def _count(self, bucket: str, window: int, size: int) -> tuple[int, int]:
        """Add ``size`` to this minute's counter: (this minute's count, the previous one's)."""
        current_key = self.key(bucket, window)
        pipe = self._redis.pipeline(transaction=False)
        pipe.incrby(current_key, size)
        pipe.expire(current_key, 2 * WINDOW_S)
        pipe.get(self.key(bucket, window - 1))
        current, _, previous = pipe.execute()
        return int(current), int(previous or 0)


def lease_size(headroom: float) -> int:
    """Requests to count at once when the bucket had ``headroom`` left: a quarter of it
    (so that even several processes leasing at once stay far from the limit), 1..MAX_LEASE."""
    return max(1, min(MAX_LEASE, int(headroom // 4)))


def retry_after(limit: int, current: int, previous: int, elapsed: float) -> float | None:
    """None if ``current`` requests in this minute plus the fading share of ``previous``
    stay within ``limit`` at ``elapsed`` seconds into the minute; else the seconds until
    one more request would fit (assuming no further requests meanwhile)."""
    if current + previous * (1 - elapsed / WINDOW_S) <= limit:
        return None
    if current < limit:
        # This minute has room: wait until the previous minute's share has faded enough.
        return max(WINDOW_S * (1 - (limit - current) / previous) - elapsed, 0.001)
    # Next minute, this one becomes the fading "previous" with one new request on top.
    return WINDOW_S - elapsed + WINDOW_S * max(0.0, 1 - (limit - 1) / current)


def _check() -> None:
    limiter: RateLimiter = current_app.extensions[EXTENSION]
    if limiter.per_minute <= 0 or request.path.startswith(EXEMPT_PREFIXES):
        return  # off: not even the bucket (a SHA-256 of the header) is computed
    wait = limiter.hit(rate_limit_bucket())
    if wait is not None:
        metrics.RATE_LIMITED.inc()
        seconds = max(1, math.ceil(wait))
        raise Problem(
            429,
            "rate_limited",
            f"more than {limiter.per_minute} requests per minute; retry in {seconds} s",
            {"Retry-After": str(seconds)},
        )


def register(app: Flask, limiter: RateLimiter) -> None:
    """Limit every request of ``app`` except the probes."""
    app.extensions[EXTENSION] = limiter
    app.before_request(_check)
