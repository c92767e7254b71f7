"""The index of clocked games by when the sweeper must look at them (``<p>clocks:due``).

:func:`next_look_ms` is the score of a table (see ``events.redis_adapter.keys``); the notifier writes
it after every append of a clocked game (``service.app.notify``), and the sweeper reads
the due members with one ``ZRANGEBYSCORE`` (``workers.sweeper.sweep_clocks``) -- no game
is ever scanned to find the due ones. A game without a clock is never in the index and
costs nothing.
"""

from __future__ import annotations

from engine.table import FINISHED, OPEN, RUNNING, Table

OPEN_RECHECK_MS = 60_000
"""How often a clocked game without a deadline is looked at (open: its clock starts with
``PlayStarted``; running with only bots to act): the notifier update that gives it one
could be lost to a crash, and this bounds the delay that would cause."""


def next_look_ms(table: Table, now_ms: int) -> int | None:
    """When the sweeper must look at ``table`` next (Unix ms), None: never (drop it)."""
    clock = table.clock
    if clock is None:
        return None
    if table.status == OPEN:
        return now_ms + OPEN_RECHECK_MS
    if table.status == FINISHED:
        return 0 if table.seed is None else None  # a reveal lost to a crash: finish it
    if table.status != RUNNING:
        return None
    if clock.pending is not None:
        return 0  # a recorded timeout whose decision is owed
    deadlines = clock.deadlines()
    # Only bots to act: no deadline now, but the game stays in the index (looked at once
    # a minute) -- dropping it would leave the next person's deadline to the notifier
    # of the bot's append alone, which a crash could lose.
    return min(deadlines.values()) if deadlines else now_ms + OPEN_RECHECK_MS
