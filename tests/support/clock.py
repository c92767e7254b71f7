"""A deterministic clock for store tests: each call one millisecond later."""

from __future__ import annotations

import itertools
import threading
from datetime import UTC, datetime, timedelta

from events.model.clock import TIME_FORMAT

EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


class StepClock:
    """Returns ``EPOCH``, then 1 ms later on every call (thread-safe)."""

    def __init__(self, start: datetime = EPOCH) -> None:
        self._start = start
        self._ticks = itertools.count()
        self._lock = threading.Lock()

    def __call__(self) -> str:
        with self._lock:
            tick = next(self._ticks)
        return (self._start + timedelta(milliseconds=tick)).strftime(TIME_FORMAT)
