"""Pacing: a decision made for a seat is never answered sooner than a fixed time.

Every event carries its time to the microsecond, and how long a bot thinks depends on
its seat's hidden facts (an Abluxxen hand, the colours a seat inspected). So whoever
decides for a seat -- a bot worker (``workers.bots``), the sweeper deciding the
timed-out turns of a pass (``service.app.timeouts``) -- waits out a floor counted from
before the decisions, and only then appends: the public time before the append is the
floor, not the thinking (docs/bots.md, "A bot's time on the wire").

A decision that takes longer than the floor shows its excess; the floors are set far
above what the cheap bots need (``TABLETOP_BOT_FLOOR_MS``).
"""

from __future__ import annotations

import time


def wait_out(started: float, seconds: float) -> None:
    """Sleep until ``seconds`` have passed since ``started`` (a ``time.monotonic()``
    reading); at once if they already have."""
    left = started + seconds - time.monotonic()
    if left > 0:
        time.sleep(left)
