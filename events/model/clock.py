"""Where the store's timestamps come from: a clock the caller injects.

The store's pure parts (sealing, hashing, redaction) take the time as an argument;
only :class:`~events.redis_adapter.store.RedisEventStore` calls its clock, once per append,
so tests can pin every timestamp.
"""

from __future__ import annotations

import time
from collections.abc import Callable

Clock = Callable[[], str]
"""Returns the current time as an ISO-8601 UTC string (``2025-01-31T12:00:00.000000Z``)."""

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"

# (Unix second, its text up to the seconds): strftime is slow next to an append, and
# the text only changes once a second. Replaced as a whole, so threads may share it.
_second: tuple[int, str] = (-1, "")


def utc_now() -> str:
    """The system clock in the envelope's time format (microseconds, ``Z`` suffix),
    i.e. ``datetime.now(UTC).strftime(TIME_FORMAT)`` with the microseconds truncated."""
    global _second
    seconds, micros = divmod(time.time_ns() // 1000, 1_000_000)
    cached = _second
    if cached[0] != seconds:
        cached = _second = (seconds, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)))
    return f"{cached[1]}.{micros:06d}Z"
