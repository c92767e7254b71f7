"""Where the store's timestamps come from: a clock the caller injects.

The store's pure parts (sealing, hashing, redaction) take the time as an argument;
only :class:`~events.redis_store.RedisEventStore` calls its clock, once per append,
so tests can pin every timestamp.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], str]
"""Returns the current time as an ISO-8601 UTC string (``2025-01-31T12:00:00.000000Z``)."""

TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def utc_now() -> str:
    """The system clock in the envelope's time format (microseconds, ``Z`` suffix)."""
    return datetime.now(UTC).strftime(TIME_FORMAT)
