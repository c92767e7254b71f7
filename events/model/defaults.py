"""Defaults of the event store, each a constant with what it controls.

Runtime code reads the environment once, through :func:`key_prefix_from_env` and
:func:`snapshot_every_from_env`; everything else takes explicit arguments so tests
can inject their own values.
"""

from __future__ import annotations

import os

KEY_PREFIX_ENV = "TABLETOP_KEY_PREFIX"
"""Environment variable naming the prefix put in front of every Redis key."""

DEFAULT_KEY_PREFIX = "tt:"
"""Prefix of every key when ``TABLETOP_KEY_PREFIX`` is unset. Lets several
deployments (or test runs) share one Redis database without touching each other."""

SNAPSHOT_EVERY_ENV = "TABLETOP_SNAPSHOT_EVERY"
"""Environment variable overriding :data:`DEFAULT_SNAPSHOT_EVERY`."""

DEFAULT_SNAPSHOT_EVERY = 100
"""A loader writes a new snapshot once the history has grown by this many events
since the last one, so loading never folds more than about this many events."""

READ_CHUNK = 5000
"""Events fetched per XRANGE call when reading a history: large enough that a
whole game is usually one round trip, small enough to bound one reply's size."""

TAIL_BLOCK_MS = 5000
"""How long a tail read waits for new events (XREAD BLOCK) before returning none."""

HEAD_CACHE_SIZE = 10_000
"""Games whose head hash one store instance remembers between appends. The cache
saves a round trip per append; when full it is simply emptied (a miss costs one
HMGET, never correctness)."""

MAX_IDEMPOTENCY_KEY = 200
"""Longest accepted idempotency key of a client, in characters."""

MAX_IDEMPOTENCY_SCOPE = 32
"""Room for the scope the application puts in front of a key (``seat:<n>:``, ``bot:<n>:``):
the store accepts keys up to ``MAX_IDEMPOTENCY_KEY`` plus this."""

IDEMPOTENCY_TTL_S = 24 * 3600
"""Seconds a game's idempotency records live after the append that ended it (the
``APPEND`` script sets the TTL on the game's ``idem`` hash then); 0 = for ever. Long
enough for any client to retry a lost answer, short enough that finished games do not
keep them: after it a retry gets a version conflict."""


def key_prefix_from_env() -> str:
    """The configured key prefix (``TABLETOP_KEY_PREFIX``, default ``tt:``)."""
    return os.environ.get(KEY_PREFIX_ENV, DEFAULT_KEY_PREFIX)


def snapshot_every_from_env() -> int:
    """The configured snapshot interval; ValueError unless a positive integer."""
    raw = os.environ.get(SNAPSHOT_EVERY_ENV)
    every = DEFAULT_SNAPSHOT_EVERY if raw is None else int(raw)
    if every < 1:
        raise ValueError(f"{SNAPSHOT_EVERY_ENV} must be a positive integer, got {raw!r}")
    return every
