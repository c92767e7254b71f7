"""Timeouts: what the sweeper does with a clocked game whose next look is due.

:func:`handle_due` (or the sweeper's pass, through :func:`look` and :func:`carry_out`)
takes one game of ``<p>clocks:due`` (``service.app.clock_index``) through at most three steps, each an append through the application's one command
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

Hidden information: a bot's thinking time depends on the seat's hidden facts, and
event times are public, so no write may wait on a decision. The decision is computed
*before* ``TurnTimedOut`` is appended (the engine state is the same on both sides of
it), so the gap between the two events holds no thinking; and a pass first *looks* at
every due game it takes (:func:`look`: loads, decides, writes nothing), waits until
:func:`paced_s` has passed since it began -- the bots' floor, or
:data:`DECISION_SLOT_S` per game -- and only then writes (:func:`carry_out`). So no
``TurnTimedOut`` is stamped at a time that follows a decision, its own or another
game's earlier in the pass (``service.app.pacing``). One wait per pass, not per game:
the sweeper's capacity stays about a slot and two appends per timeout.
``TurnTimedOut`` holds public facts only (who, the public
deadline, the public policy); the bot sees exactly the seat's view; the decision's
command is redacted like the seat's own (``events.model.redaction``: only its seat sees it
until the end).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

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
DEFERRED = "deferred"
"""A timeout its game's creator's share has not paid for yet: looked at again later
(``service.app.bot_share``; the seat keeps its turn meanwhile, as when the sweeper lags)."""

DECISION_SLOT_S = 0.002
"""Time each due game of a pass is given to be looked at (its table loaded, its decision
made) before the pass writes anything: a greedy timeout decision takes 0.1-1 ms, a
table load about as much, so a pass's looks end within their slots and the first write
comes at a time that depends on how many games were due, not on what they hold."""


@dataclass(frozen=True, slots=True)
class Step:
    """What a look at a due game found to write: a seed reveal lost to a crash, or a
    timeout -- to record and decide (``seat`` set), or recorded and still to decide
    (``seat`` None) -- with its decision, already made."""

    game_id: str
    table: Table
    seat: int | None = None
    deadline_ms: int | None = None
    decision: tuple[JSON | None, list[Event]] | None = None


def look(app: Application, game_id: str, now_ms: int) -> str | Step:
    """What ``game_id``'s clock asks for at ``now_ms``: an outcome when there is nothing
    to write (the game is re-indexed through the notifier), else the :class:`Step` to
    carry out. Appends nothing, so the time it takes -- the decision's thinking
    included -- shows in no event; GameNotFound comes back as GONE."""
    try:
        table = app.tables.load(game_id)
    except GameNotFound:
        return GONE
    if table.status == FINISHED and table.seed is None:
        return Step(game_id, table)
    clock = table.clock
    if clock is None or table.status != RUNNING:
        app.notifier.after_append(game_id, table)  # drops or re-scores it
        return DONE
    if clock.pending is not None:  # recorded by a sweeper that died before deciding
        return Step(game_id, table, decision=_decision(app, game_id, table, clock.pending, table.version))
    seat = clock.due(now_ms)
    if seat is None:
        app.notifier.after_append(game_id, table)  # an early look: score it right
        return NOT_DUE
    # Decided *before* the timeout is stamped: the engine state is the same either side
    # of TurnTimedOut (a table event), so the time between the two appends holds no
    # thinking.
    decision = _decision(app, game_id, table, seat, table.version + 1)
    return Step(game_id, table, seat, clock.deadline_ms(seat), decision)


def carry_out(app: Application, step: Step, between_steps: Callable[[], None] | None = None) -> str:
    """Write ``step``: each append at the version it was looked at, so a game that moved
    on meanwhile (its seat acted, another sweeper) gets STALE and nothing written.
    ``between_steps`` runs after a timeout is recorded and before it is decided (the
    fault-injection tests park a sweeper there to kill it)."""
    game_id, table = step.game_id, step.table
    if step.decision is None:
        return REVEALED if app.finish_reveal(game_id, table) else DONE
    try:
        if step.seat is not None:
            assert step.deadline_ms is not None
            recorded_at = table.version + 1
            table = app.record_timeout(game_id, table, step.seat, iso_ms(step.deadline_ms))
            log.info("game %s: seat %s timed out at version %s", game_id, step.seat, recorded_at)
            if between_steps is not None:
                between_steps()
            if table.version != recorded_at:
                return STALE  # the table we got back is already past the decision: another sweeper's
        assert table.clock is not None and table.clock.pending is not None
        app.decide_timed_out(game_id, table, table.clock.pending, *step.decision)
    except (StaleVersion, Forbidden):
        return STALE  # another sweeper, or the seat itself, got there first
    return TIMED_OUT


def paced_s(steps: int, floor_s: float) -> float:
    """How long looking at ``steps`` due games takes at least, before the first write:
    the bots' floor, or DECISION_SLOT_S per game when that is longer."""
    return max(floor_s, steps * DECISION_SLOT_S) if steps else 0.0


def handle_due(
    app: Application,
    game_id: str,
    now_ms: int,
    between_steps: Callable[[], None] | None = None,
    floor_s: float = 0.0,
) -> str:
    """Take ``game_id`` as far as its clock says at ``now_ms`` (see the module docstring):
    :func:`look`, wait out :func:`paced_s`, :func:`carry_out`; returns what happened."""
    started = time.monotonic()
    looked = look(app, game_id, now_ms)
    if isinstance(looked, str):
        return looked
    wait_out(started, paced_s(1, floor_s))
    return carry_out(app, looked, between_steps)


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
