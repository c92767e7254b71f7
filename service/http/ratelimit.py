"""Rate limits shared by every API process: a sliding-window counter in Redis.

Each bucket (a token's hash, or a client address without a token; see
``auth.rate_limit_bucket``) counts requests per fixed minute in one Redis key; the
estimate over the last 60 s is ``current + previous * (1 - elapsed fraction)``
(the "sliding window counter": no burst of twice the limit at a minute's edge, and
constant memory). One pipelined round trip per request -- INCR + EXPIRE of the
current minute and GET of the previous -- so the command path pays about one Redis
RTT for it. A refused request still counts: hammering does not reopen the window.

Keys (documented in ``events/keys.py``): ``<p>ratelimit:{<bucket>}:<minute>``, a
counter that expires after two minutes. The hash tag keeps both minutes of a
bucket in one Redis Cluster slot.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
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


class RateLimiter:
    """Counts requests per bucket; thread-safe (all state is in Redis)."""

    def __init__(
        self, client: Any, prefix: str, per_minute: int, clock: Callable[[], float] = time.time
    ) -> None:
        self._redis = client
        self._prefix = prefix
        self.per_minute = per_minute
        self._clock = clock

    def key(self, bucket: str, window: int) -> str:
        return prefixed(self._prefix, f"ratelimit:{{{bucket}}}:{window}")

    def hit(self, bucket: str) -> float | None:
        """Count one request of ``bucket``; None if allowed, else seconds until it would be."""
        if self.per_minute <= 0:
            return None
        now = self._clock()
        window, elapsed = divmod(now, WINDOW_S)
        current_key = self.key(bucket, int(window))
        pipe = self._redis.pipeline(transaction=False)
        pipe.incr(current_key)
        pipe.expire(current_key, 2 * WINDOW_S)
        pipe.get(self.key(bucket, int(window) - 1))
        current, _, previous = pipe.execute()
        return retry_after(self.per_minute, current, int(previous or 0), elapsed)


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
