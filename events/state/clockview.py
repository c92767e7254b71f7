"""A turn clock as views show it: the clock's public settings and each seat's deadline.

Pure functions of a table (``engine.turnclock`` folded from the events' times), shared
by the API's views (``service.app.documents``) and replays (``events.audit.replay``),
so a deadline reads the same everywhere.
"""

from __future__ import annotations

from datetime import UTC, datetime

from engine.model import JSON
from engine.table import RUNNING, Table


def iso_ms(ms: int) -> str:
    """Unix ms as ISO 8601 UTC with milliseconds and ``Z`` (the envelope time format's shape)."""
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def clock_json(table: Table) -> JSON | None:
    """The turn clock (public): its settings and each seat's reserve left (ms); None
    for a game without one. ``timed_out``: the seat whose timeout the policy is deciding."""
    clock = table.clock
    if clock is None:
        return None
    return {
        **clock.settings_json(),
        "reserve_left_ms": {str(s): left for s, left in enumerate(clock.reserve_left)},
        "timed_out": clock.pending,
    }


def deadlines_json(table: Table) -> JSON:
    """Each seat to act with its deadline, ``{"<seat>": {"at": ISO 8601 UTC (ms),
    "at_ms": Unix ms}}`` -- a pure function of the events (the times of the events that
    put the seats to act, ``engine.turnclock``). Empty without a clock or once over."""
    clock = table.clock
    if clock is None or table.status != RUNNING:
        return {}
    return {str(s): {"at": iso_ms(ms), "at_ms": ms} for s, ms in sorted(clock.deadlines().items())}
