"""Timeouts: what the sweeper does with a clocked game whose next look is due.

:func:`handle_due` takes one game of ``<p>clocks:due`` (``service.app.clock_index``)
through at most three steps, each an append through the application's one command
path, each at the version it was decided on:

1. a seat to act whose deadline passed gets ``TurnTimedOut {seat, policy, deadline}``,
   written by the system under the key ``sys:timeout:<version>``;
2. the clock's policy decides for that seat (``engine.timeout.policy_decision``): a bot
   of the named level chooses from the seat's own view with
   ``events.model.records.timeout_rng`` (from the secret seed, so a verifier re-runs it), or
   the seat forfeits; appended as ``{"kind": "timeout", "seat": n}`` under the key
   ``sys:timeout:<version>:<seat>``;
3. if that ended the game, the seed is revealed (the command path does it; a reveal
   lost to a crash is finished on the next look, ``Application.finish_reveal``).

Exactly once, under any number of sweepers and crashes: each step is one atomic
append at an expected version, so of two sweepers racing on a step one writes and the
other gets StaleVersion and stops; a sweeper killed between steps leaves a history
whose table says what is still owed (``clock.pending``: a recorded timeout whose
decision is missing; a finished game without its seed), and the index scores such a
game 0 -- due at once -- so the next pass finishes it.

Hidden information: the decision is computed *before* ``TurnTimedOut`` is appended
(the engine state is the same on both sides of it), so the gap between the two events'
times holds no bot thinking time, which could depend on the seat's hidden facts; and
``TurnTimedOut`` is appended only once ``floor_s`` has passed since the decision began
(``service.app.pacing``), so its own time -- after the previous game's timeout in the
same pass, say -- holds none either.
``TurnTimedOut`` holds public facts only (who, the public
deadline, the public policy); the bot sees exactly the seat's view; the decision's
command is redacted like the seat's own (``events.model.redaction``: only its seat sees it
until the end).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from engine.model import JSON, Event
from engine.registry import get_game
from engine.table import FINISHED, RUNNING, Table
from engine.timeout import policy_decision
from events.model.records import engine_rng, timeout_rng
from events.state.clockview import iso_ms
from service.app.application import Application
from service.app.errors import Forbidden, GameNotFound, StaleVersion
from service.app.pacing import wait_out

log = logging.getLogger(__name__)

NOT_DUE, TIMED_OUT, REVEALED, GONE, STALE, DONE = "not_due", "timed_out", "revealed", "gone", "stale", "done"


def handle_due(
    app: Application,
    game_id: str,
    now_ms: int,
    between_steps: Callable[[], None] | None = None,
    floor_s: float = 0.0,
) -> str:
    """Take ``game_id`` as far as its clock says at ``now_ms`` (see the module docstring);
    returns what happened. Re-indexes the game (through the notifier) when nothing was due.
    ``between_steps`` runs after a timeout is recorded and before it is decided (the
    fault-injection tests park a sweeper there to kill it). A decision's first append
    waits until ``floor_s`` (the bots' floor, ``TABLETOP_BOT_FLOOR_MS``) has passed
    since it began."""
    try:
        table = app.tables.load(game_id)
    except GameNotFound:
        return GONE
    if table.status == FINISHED and table.seed is None:
        return REVEALED if app.finish_reveal(game_id, table) else DONE
    clock = table.clock
    if clock is None or table.status != RUNNING:
        app.notifier.after_append(game_id, table)  # drops or re-scores it
        return DONE
    try:
        if clock.pending is None:
            seat = clock.due(now_ms)
            if seat is None:
                app.notifier.after_append(game_id, table)  # an early look: score it right
                return NOT_DUE
            deadline = clock.deadline_ms(seat)
            assert deadline is not None
            # Decided *before* the timeout is stamped: the engine state is the same either
            # side of TurnTimedOut (a table event), and this way the time between the two
            # appends holds no bot thinking time -- which could depend on hidden facts.
            started = time.monotonic()
            decision = _decision(app, game_id, table, seat, table.version + 1)
            wait_out(started, floor_s)
            recorded_at = table.version + 1
            table = app.record_timeout(game_id, table, seat, iso_ms(deadline))
            log.info("game %s: seat %s timed out at version %s", game_id, seat, recorded_at)
            if between_steps is not None:
                between_steps()
            if table.version != recorded_at:
                return STALE  # the table we got back is already past the decision: another sweeper's
        else:  # recorded by a sweeper that died before deciding: finish its work
            started = time.monotonic()
            decision = _decision(app, game_id, table, clock.pending, table.version)
            wait_out(started, floor_s)
        assert table.clock is not None and table.clock.pending is not None
        app.decide_timed_out(game_id, table, table.clock.pending, *decision)
    except (StaleVersion, Forbidden):
        return STALE  # another sweeper, or the seat itself, got there first
    return TIMED_OUT


def _decision(app: Application, game_id: str, table: Table, seat: int, version: int) -> tuple[JSON | None, list[Event]]:
    """The clock policy's decision for ``seat`` on ``table``'s state, drawn for the
    ``TurnTimedOut`` at ``version`` (``events.model.records.timeout_rng``)."""
    assert table.clock is not None
    game = get_game(table.game)
    seed = app.seed(game_id)
    return policy_decision(
        game,
        table.state,
        seat,
        table.clock.policy,
        timeout_rng(seed, game_id, version, seat),
        engine_rng(seed, game.rules_version),
    )
