"""Rate limits shared by every API process: a sliding-window counter in Redis, leased.

Two kinds of limit, each a :class:`RateLimiter` of its own:

- the *general* limit (``rate_limit_per_minute``), charged before every request
  but the probes, per bucket of *verified* identity (``auth.rate_limit_bucket``: a
  seat whose token was checked, the admin, else the client's address -- never the
  raw header text, so a made-up or re-spelled token is charged to the address);
- the *expensive* limits (:data:`EXPENSIVE`): creating games (each strong-bot seat
  weighing ``strong_seat_cost`` more), verifying a game not verified before,
  replays (``?at=`` views, exports), and issuing stream tickets (each a Redis key
  for ``stream_ticket_ttl_s``: the limit bounds how many one client keeps).
  Handlers charge them with :func:`charge` just before the work; they are per client address (the admin: its own bucket),
  since seat tokens are cheap to collect and must not multiply these budgets.

Each bucket counts requests (or units, see ``hit``'s ``cost``) per fixed minute in one
Redis key; the
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

Keys (documented in ``events/redis_adapter/keys.py``): ``<p>ratelimit:{<bucket>}:<minute>`` (the
general limit) and ``<p>ratelimit:<kind>:{<bucket>}:<minute>`` (an expensive one), a
counter that expires after two minutes. The hash tag keeps both minutes of a
bucket in one Redis Cluster slot.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, request
from redis.exceptions import RedisError

from events.redis_adapter.keys import prefixed
from events.redis_adapter.lane import Lane
from events.redis_adapter.refusals import write_refusal
from service.bootstrap import Services
from service.http import auth, context, metrics
from service.http.problems import Problem
from service.locks import section_lock
from service.settings import Settings

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
        self,
        client: Any,
        prefix: str,
        per_minute: int,
        clock: Callable[[], float] = time.time,
        kind: str = "",
        lane: Lane | None = None,
    ) -> None:
        """``kind`` names an expensive limit (its keys' namespace); "" the general one.
        ``lane``: where a lease is counted (the store's: one round trip on its kept or
        shared connection, ``events.redis_adapter.lane``); None: a pipeline of ``client``."""
        self._redis = client
        self._lane = lane
        self._prefix = prefix
        self._namespace = f"ratelimit:{kind}:" if kind else "ratelimit:"
        self.kind = kind
        self.per_minute = per_minute
        self._clock = clock
        self._leases: dict[str, Lease] = {}
        self._lock = section_lock()  # around the leases' dict only: Redis is asked outside it

    def key(self, bucket: str, window: int) -> str:
        return prefixed(self._prefix, f"{self._namespace}{{{bucket}}}:{window}")

    def hit(self, bucket: str, cost: int = 1) -> float | None:
        """Count one request of ``bucket`` weighing ``cost`` units (at most the limit: a
        request never costs more than a whole minute); None if allowed, else seconds
        until it would be."""
        if self.per_minute <= 0:
            return None
        cost = max(1, min(cost, self.per_minute))
        window_f, elapsed = divmod(self._clock(), WINDOW_S)
        window = int(window_f)
        with self._lock:
            lease = self._leases.get(bucket)
            if lease is not None and lease.window == window and lease.left >= cost:
                lease.left -= cost
                return None
            size = lease_size(lease.headroom) if lease is not None and lease.window == window else 1
            size = max(size, cost)
        try:
            current, previous = self._count(bucket, window, size)
        except RedisError as error:
            if self.kind or write_refusal(error) is None:
                raise
            # Redis takes no writes now (full memory under noeviction, a disk it cannot
            # persist to, a replica) and refused the counter's. The general limit fails
            # open: reads must go on, and a write the request attempts is refused anyway
            # (503 store_full / store_unwritable), so such a store cannot be flooded into
            # anything. An expensive operation's limit fails closed (the refusal's 503):
            # work that cannot be counted per client is not done for anyone.
            return None
        estimate = current + previous * (1 - elapsed / WINDOW_S)
        # Of the ``size`` units just counted, those that fit under the limit may be
        # served: this request's ``cost`` now, the rest from the lease.
        fits = min(size, math.floor(self.per_minute - estimate + size))
        allowed = fits >= cost
        with self._lock:
            if len(self._leases) >= MAX_BUCKETS:
                self._leases.clear()
            left = max(fits - cost if allowed else fits, 0)
            self._leases[bucket] = Lease(window, left, self.per_minute - estimate)
        if allowed:
            return None
        # Another ``cost`` units fit once the estimate is at most limit - cost.
        wait = retry_after(self.per_minute - cost + 1, current, previous, elapsed)
        return 1.0 if wait is None else wait

    def _count(self, bucket: str, window: int, size: int) -> tuple[int, int]:
        """Add ``size`` to this minute's counter: (this minute's count, the previous one's)."""
        current_key = self.key(bucket, window)
        commands = (
            ("INCRBY", current_key, size),
            ("EXPIRE", current_key, 2 * WINDOW_S),
            ("GET", self.key(bucket, window - 1)),
        )
        if self._lane is not None:
            current, _, previous = self._lane.execute_many(*commands)
        else:
            pipe = self._redis.pipeline(transaction=False)
            for command in commands:
                pipe.execute_command(*command)
            current, _, previous = pipe.execute()
        # The count as an int (the lane) or as redis-py parsed it; the previous one as
        # bytes, str or None (no request in that minute).
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


@dataclass(frozen=True, slots=True)
class Expensive:
    """An expensive operation's limit: its setting and the problem code of a refusal."""

    kind: str
    setting: str
    code: str
    what: str


CREATE = Expensive("create", "create_limit_per_minute", "create_rate_limited", "game creations")
VERIFY = Expensive("verify", "verify_limit_per_minute", "verify_rate_limited", "verifications")
REPLAY = Expensive("replay", "replay_limit_per_minute", "replay_rate_limited", "replays")
TICKET = Expensive(
    "ticket", "stream_ticket_limit_per_minute", "ticket_rate_limited", "stream tickets"
)
EXPENSIVE = (CREATE, VERIFY, REPLAY, TICKET)


def limiters(
    client: Any, prefix: str, settings: Settings, lane: Lane | None = None
) -> dict[str, RateLimiter]:
    """The general limiter (key "") and one per expensive operation (key = its kind).
    ``lane``: where the general limiter counts its leases (see :class:`RateLimiter`): it
    runs before every request, so its round trips share the store's lane; the
    expensive ones are rare and use ``client``."""
    made = {"": RateLimiter(client, prefix, settings.rate_limit_per_minute, lane=lane)}
    for op in EXPENSIVE:
        made[op.kind] = RateLimiter(client, prefix, getattr(settings, op.setting), kind=op.kind)
    return made


def _refuse(code: str, detail: str, wait: float) -> Problem:
    metrics.RATE_LIMITED.inc()
    seconds = max(1, math.ceil(wait))
    return Problem(429, code, f"{detail}; retry in {seconds} s", {"Retry-After": str(seconds)})


def charge(op: Expensive, cost: int = 1) -> None:
    """Charge ``cost`` units of the expensive operation ``op`` to the calling client
    (its address; the admin token: the admin's bucket): 429 ``op.code`` with
    ``Retry-After`` when its limit is reached. Call it just before the work."""
    limiter: RateLimiter = current_app.extensions[EXTENSION][op.kind]
    if limiter.per_minute <= 0:
        return
    bucket = "admin" if auth.is_admin_request() else "ip:" + auth.client_address()
    wait = limiter.hit(bucket, cost)
    if wait is not None:
        raise _refuse(op.code, f"more than {limiter.per_minute} {op.what} per minute", wait)


def _checker(limiter: RateLimiter) -> Callable[[], None]:
    """The general limit's ``before_request`` hook for ``limiter`` (bound here, not looked
    up in the app per request: this runs before every request)."""

    def check() -> None:
        if request.path.startswith(EXEMPT_PREFIXES):
            return
        game_id = (request.view_args or {}).get("game_id")
        enforce_general(limiter, request.environ, game_id, context.services())

    return check


def enforce_general(
    limiter: RateLimiter, environ: Mapping[str, Any], game_id: str | None, services: Services
) -> None:
    """Count one request (WSGI ``environ``, naming ``game_id``) against the general limit
    ``limiter``: 429 ``rate_limited`` with ``Retry-After`` past it. The probes'
    exemption is the caller's to apply."""
    if limiter.per_minute <= 0:
        return  # off: not even the bucket (a token check) is computed
    wait = limiter.hit(auth.rate_limit_bucket(environ, game_id, services))
    if wait is not None:
        raise _refuse("rate_limited", f"more than {limiter.per_minute} requests per minute", wait)


def general(app: Flask) -> RateLimiter:
    """The general limiter :func:`register` gave ``app``."""
    return app.extensions[EXTENSION][""]  # type: ignore[no-any-return]


def register(app: Flask, limits: dict[str, RateLimiter]) -> None:
    """Limit every request of ``app`` except the probes (the general limit), and keep
    the expensive operations' limiters for :func:`charge`."""
    app.extensions[EXTENSION] = limits
    app.before_request(_checker(limits[""]))
