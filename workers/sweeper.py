"""The sweeper: no game waits on a bot for ever, and no game stays open, or idle, for ever.

A bot job can be lost or stuck: its worker was killed mid-job, Redis crashed while it
ran, Redis failed over between the append and the enqueue, its retries ran out. The
notifier keeps ``<p>bots:waiting`` (see ``events.redis_adapter.keys``): every running game whose next
turn belongs to a bot, scored by when that wait began. :func:`sweep_once` looks at the
members waiting longer than :data:`RECOVER_AFTER_S` and, for each bot seat that must
still act at the game's current version, at the state of that turn's job
(:func:`job_state`):

- **dead** -- no job, or failed, stopped, canceled, finished (yet the game still waits),
  "started" by a worker whose heartbeat (``<p>worker:alive:<name>``, see
  ``workers/rq_worker.py``) expired, or scheduled for a retry that is overdue by more
  than :data:`RECOVER_AFTER_S` (no scheduler moves it): the sweeper deletes the dead
  job and enqueues the turn again under its own id (:func:`bot_job_id`), at once;
- **popped** -- "queued", yet in its queue no more: a worker took it (BLPOP) and died
  before marking it "started" -- RQ itself never looks at such a job again. The
  sweeper pushes its id back at the front of its queue, at once. (A live worker passes
  through that state within a millisecond; should the sweeper look right then, the turn
  runs twice, and its idempotency key makes the second run write nothing.)
- **pending** -- queued (in its queue), deferred, or scheduled and not overdue: the
  workers are behind, not dead; left alone;
- **running** -- "started" by a live worker: left alone until the wait exceeds
  ``settings.bot_stall_s``, then enqueued again under a fresh id (``...-r<time>``)
  beside the stuck one, as RQ refuses a live job's id.

Every re-enqueue keeps the turn's idempotency key, so a turn is played once however
many of its jobs run; the sweeper then bumps the game's score to now, so the next look
comes :data:`RECOVER_AFTER_S` later at the earliest. Jobs are read on the RQ queue's
own connection (``BotQueue``).

:func:`run` repeats that every ``settings.sweep_interval_s`` and writes a heartbeat
(``<p>sweeper:alive``) for health checks. The index, the tables and the heartbeat are
on the store's Redis (possibly a cluster: every command touches one key), the jobs on
RQ's (``svc.queue_redis``). Several sweepers may run: at worst they
enqueue one extra job each, which finds the turn played and does nothing.

Open games: :func:`expire_open_games` takes the games of ``<p>games:open`` (see
``service.app.open_games``) created more than ``settings.open_game_ttl_s`` ago and
has the application record ``GameExpired`` for each one still open -- through its
table path, at the table's version, so a seat taken at the same moment wins (the
expiry conflicts and is retried next pass) and two sweepers expire a game once.
Members that are no longer open (started, expired, gone) leave the index.

Idle games: :func:`expire_idle_games` takes the games of ``<p>games:running`` (see
``service.app.live_games``) due for a look -- scored more than
``settings.idle_game_ttl_s`` ago -- and has the application record ``GameExpired``
(reason ``idle``) for each one still running with nothing written since then, through
its table path as above; one written to meanwhile is re-scored by its last event, one
that no longer runs leaves the index.

Turn clocks: :func:`sweep_clocks` takes the members of ``<p>clocks:due`` (see
``service.app.clock_index``) scored at or before now -- one ZRANGEBYSCORE, however many
clocked games run -- and takes them in two phases of ``service.app.timeouts``: it
looks at each (``look``: the clock's policy decides, nothing is written), waits out the
pacing, then writes each (``carry_out``: the timeout recorded, the decision appended,
the game re-scored). Exactly once under concurrent sweepers and crashes: see that
module. A timeout is charged to its game's creator's share of the bot work
(``service.app.bot_share``); one beyond it is not written but looked at again once paid
for (``deferred``), so one client's idle clocked games cannot fill every pass.

Games over: :func:`archive_games_over` moves a bounded batch of games that finished,
or expired, more than ``settings.archive_after_s`` ago out of Redis into the archive
each pass.
"""

from __future__ import annotations

import logging
import math
import os
import threading
import time
from datetime import UTC, datetime
from typing import Any

from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.queue import Queue
from rq.registry import ScheduledJobRegistry

from engine.table import OPEN, RUNNING
from events.redis_adapter.keys import BOTS_WAITING, CLOCKS_DUE, SWEEPER_ALIVE, prefixed
from service.app.bot_share import BotShare
from service.app.errors import GameNotFound
from service.app.notify import BotQueue, bot_job_id, bots_to_act
from service.app.pacing import wait_out
from service.app.timeouts import DECISION_SLOT_S, DEFERRED, Step, carry_out, look, paced_s
from service.bootstrap import Services
from workers.rq_worker import read_heartbeat

log = logging.getLogger(__name__)

SWEEP_BATCH = 500
"""Stalled games handled per pass (the oldest first); the rest wait for the next pass."""

PENDING = frozenset({JobStatus.QUEUED, JobStatus.DEFERRED})
"""States of a job that will still run by itself (scheduled ones: see :func:`job_state`)."""

RECOVER_AFTER_S = 3.0
"""A game waiting on a bot for less than this is not looked at: its job was just enqueued.
Also how overdue a scheduled retry may be before the sweeper enqueues the turn itself."""

DEAD, POPPED, PENDING_STATE, RUNNING_STATE = "dead", "popped", "pending", "running"

ALIVE_TTL_PASSES = 3
"""The heartbeat expires after this many sweep intervals without a pass."""

ARCHIVE_EVERY_S = 60.0
"""The archiving pass runs at most this often: it SCANs every head key, which costs in
proportion to the whole key space, while the bot and open-game passes are cheap."""


def expire_open_games(svc: Services, now: float | None = None) -> list[str]:
    """One pass over the open games past their TTL; returns the ids it expired."""
    ttl = svc.settings.open_game_ttl_s
    index = svc.app.open_games
    if ttl <= 0 or index is None:
        return []
    now = time.time() if now is None else now
    expired: list[str] = []
    for game_id in index.older_than(now - ttl, SWEEP_BATCH):
        try:
            done = svc.app.expire(game_id, ttl, datetime.fromtimestamp(now, UTC))
            table = svc.app.tables.load(game_id)
        except GameNotFound:
            index.closed(game_id)
            continue
        if done:
            expired.append(game_id)
            log.info("game %s expired: its seats were not all taken within %s s", game_id, ttl)
        elif table.status != OPEN:
            index.closed(game_id)  # started or expired meanwhile: a removal was lost
    return expired


def expire_idle_games(svc: Services, now: float | None = None) -> list[str]:
    """One pass over the running games due for a look; returns the ids it expired."""
    ttl = svc.settings.idle_game_ttl_s
    index = svc.app.live_games
    if ttl <= 0 or index is None:
        return []
    now = time.time() if now is None else now
    expired: list[str] = []
    for game_id in index.due(now - ttl, SWEEP_BATCH):
        try:
            looked = svc.app.expire_idle(game_id, ttl, datetime.fromtimestamp(now, UTC))
        except GameNotFound:
            index.stopped(game_id)
            continue
        if looked.look_again_at is not None:
            index.look_again(game_id, looked.look_again_at)  # written to within the TTL
            continue
        index.stopped(game_id)  # expired now, or it ended or expired before
        if looked.expired:
            expired.append(game_id)
            log.info("game %s expired: nothing was written to it for %s s", game_id, ttl)
    return expired


CLOCK_PASS_BUDGET_S = 0.5
"""Wall-clock time one pass may spend on timeouts; the rest wait for the next pass,
earliest deadline first. A timeout costs a decision slot (``DECISION_SLOT_S``: the
pass's first write waits until the slots of its games, or the bots' floor, have passed)
and two appends, about 3.5 ms, so some 140 fit a pass; this bounds how long many clocked games -- however many one client keeps going -- can
hold up the bot recovery and the expiry that share the loop."""

WRITE_S = 0.0015
"""About what carrying out one timeout costs (two appends), for the pass's budget."""

STEP_DELAY_ENV = "TABLETOP_SWEEPER_STEP_DELAY_S"
"""Fault injection for tests only (unset in production): seconds the sweeper waits
between recording a timeout and deciding it, so a test can kill it right there."""


def sweep_clocks(svc: Services, now: float | None = None) -> dict[str, str]:
    """One pass over the due clocked games (at most SWEEP_BATCH, earliest deadline first,
    for at most CLOCK_PASS_BUDGET_S); returns what happened to each
    (``service.app.timeouts``). The pass looks at every game it takes first (decisions
    made, nothing written), waits out ``paced_s`` since it began, then writes: no
    event's time follows a decision (the module docstring there). A game that fails is
    logged and left in the index: the next pass tries again."""
    now = time.time() if now is None else now
    now_ms = int(now * 1000)
    due = svc.redis.zrangebyscore(
        prefixed(svc.settings.key_prefix, CLOCKS_DUE), "-inf", now_ms, start=0, num=SWEEP_BATCH
    )
    delay = float(os.environ.get(STEP_DELAY_ENV) or 0)
    pause = (lambda: time.sleep(delay)) if delay > 0 else None
    outcomes: dict[str, str] = {}
    steps: list[Step] = []
    share = _clock_share(svc)
    started = time.monotonic()
    for member in due:
        if (outcomes or steps) and _pass_full(started, len(steps)):
            break  # the rest are still due: next pass, in deadline order
        game_id = member.decode() if isinstance(member, bytes) else member
        try:
            looked = look(svc.app, game_id, now_ms)
        except Exception:
            log.exception("clock of game %s: the timeout failed; trying again next pass", game_id)
            continue
        if isinstance(looked, str):
            outcomes[game_id] = looked
        elif _deferred(svc, share, looked, now_ms):
            outcomes[game_id] = DEFERRED
        else:
            steps.append(looked)
    wait_out(started, paced_s(len(steps), svc.settings.bot_floor_ms / 1000))
    for step in steps:
        try:
            outcomes[step.game_id] = carry_out(svc.app, step, pause)
        except Exception:
            log.exception("clock of game %s: the timeout failed; trying again next pass", step.game_id)
    return outcomes


def _clock_share(svc: Services) -> BotShare | None:
    """The clients' shares the timeouts of their games are charged to (None: off)."""
    if svc.settings.bot_share <= 0:
        return None
    queues = svc.queue_redis if svc.queue_redis is not None else svc.redis
    return BotShare(queues, svc.settings.key_prefix, svc.settings)


def _deferred(svc: Services, share: BotShare | None, step: Step, now_ms: int) -> bool:
    """Whether ``step``, a timeout to record, waits for its game's creator's share: then
    the game is looked at again once the share has paid for it (its entry in
    ``clocks:due`` re-scored; XX: never re-adds a game the notifier removed)."""
    if share is None or step.seat is None:  # a reveal, or a recorded timeout: finish it
        return False
    delay = share.game_delay_s(svc.redis, step.game_id)
    if delay <= 0:
        return False
    due = prefixed(svc.settings.key_prefix, CLOCKS_DUE)
    svc.redis.zadd(due, {step.game_id: now_ms + math.ceil(delay * 1000)}, xx=True)
    return True


def _pass_full(started: float, steps: int) -> bool:
    """Whether a pass that took ``steps`` due games so far should take no more: its
    looks, its wait and its writes (about two appends each) would pass the budget."""
    writes_s = steps * (DECISION_SLOT_S + WRITE_S)
    return time.monotonic() - started + writes_s > CLOCK_PASS_BUDGET_S


def sweep_once(svc: Services, bots: BotQueue, now: float | None = None) -> list[str]:
    """One pass; returns the ids of the jobs it enqueued."""
    now = time.time() if now is None else now
    waiting = prefixed(svc.settings.key_prefix, BOTS_WAITING)
    stalled = svc.redis.zrangebyscore(
        waiting, "-inf", now - RECOVER_AFTER_S, start=0, num=SWEEP_BATCH, withscores=True
    )
    enqueued: list[str] = []
    for member, since in stalled:
        game_id = member.decode() if isinstance(member, bytes) else member
        long_stalled = since <= now - svc.settings.bot_stall_s
        enqueued += _sweep_game(svc, bots, waiting, game_id, now, long_stalled)
    return enqueued


def _sweep_game(
    svc: Services, bots: BotQueue, waiting: str, game_id: str, now: float, long_stalled: bool
) -> list[str]:
    try:
        table = svc.app.tables.load(game_id)
    except GameNotFound:
        svc.redis.zrem(waiting, game_id)
        return []
    if table.status != RUNNING:  # it will never wait again
        svc.redis.zrem(waiting, game_id)
        return []
    seats = bots_to_act(table)
    enqueued = []
    for seat in seats:
        job_id = bot_job_id(game_id, table.version, seat)
        state, job = job_state(bots.queue.connection, svc.settings.key_prefix, job_id, now)
        level = table.seats[seat].bot  # to the queue of its cost, as the notifier does
        if state == POPPED and job is not None:
            requeue(bots.queue.connection, job)
            enqueued.append(job.id)
            log.warning(
                "game %s: bot job %s was taken by a worker that died; requeued", game_id, job.id
            )
            continue
        if state == DEAD:
            if job is not None:
                job.delete(remove_from_queue=True)
            attempt = None
        elif state == RUNNING_STATE and long_stalled:
            attempt = str(int(now * 1000))
        else:
            continue  # pending, or running for less than bot_stall_s: look again next pass
        if bots.enqueue(game_id, table.version, seat, attempt=attempt, level=level):
            enqueued.append(bot_job_id(game_id, table.version, seat, attempt))
            log.warning(
                "game %s waited on bot seat %s at version %s (job %s); re-enqueued",
                game_id,
                seat,
                table.version,
                state,
            )
    if enqueued or not seats:
        # Not before another RECOVER_AFTER_S. (A running game waiting on a person here had
        # its index update lost; it is not removed -- a bot's wait recorded meanwhile
        # would be lost with it -- the bump only makes it cheap: one look per period.)
        svc.redis.zadd(waiting, {game_id: now}, xx=True)
    return enqueued


def job_state(client: Any, key_prefix: str, job_id: str, now: float) -> tuple[str, Job | None]:
    """``dead``, ``popped``, ``pending`` or ``running`` (see the module docstring), with
    the job."""
    try:
        job = Job.fetch(job_id, connection=client)
    except NoSuchJobError:
        return DEAD, None
    status = job.get_status(refresh=False)
    if (
        status == JobStatus.QUEUED
        and client.lpos(Queue(job.origin, connection=client).key, job.id) is None
    ):
        return POPPED, job
    if status in PENDING:
        return PENDING_STATE, job
    if status == JobStatus.SCHEDULED:
        try:
            due = ScheduledJobRegistry(job.origin, connection=client).get_scheduled_time(job)
        except NoSuchJobError:
            return DEAD, job  # scheduled, yet in no registry: nothing will enqueue it
        overdue = now - due.timestamp() > RECOVER_AFTER_S
        return (DEAD if overdue else PENDING_STATE), job
    if status == JobStatus.STARTED:
        beat = read_heartbeat(client, key_prefix, job.worker_name) if job.worker_name else None
        return (DEAD if beat is None else RUNNING_STATE), job
    return DEAD, job  # failed, stopped, canceled, finished: nothing will run it again


def requeue(client: Any, job: Job) -> None:
    """Put a popped job's id back at the front of its queue (and out of RQ's intermediate
    list, where a single-queue worker parks what it takes)."""
    queue = Queue(job.origin, connection=client)
    pipe = client.pipeline()
    pipe.lrem(queue.intermediate_queue_key, 0, job.id)
    queue.push_job_id(job.id, pipeline=pipe, at_front=True)
    pipe.execute()


def archive_games_over(svc: Services, now: float | None = None) -> list[str]:
    """One bounded archiving pass (``service.app.archiving``): up to ``archive_batch``
    games whose seed was revealed, or that expired, more than ``archive_after_s`` ago
    move to the archive.
    Returns the ids moved. Off when ``archive_after_s`` is 0 or the store has no archive.
    A game that fails verification is logged and stays in Redis."""
    after = svc.settings.archive_after_s
    lazy = svc.store.archive
    if after <= 0 or lazy is None:
        return []
    from service.app.archiving import archive_over  # SQLAlchemy: only in the sweeper

    # lazy.store: the archive is opened (created) only once some game is due.
    moved, _refused = archive_over(
        svc.redis,
        lazy.store,
        svc.settings.key_prefix,
        after,
        limit=svc.settings.archive_batch,
        now=now,
    )
    return moved


def run(svc: Services, stop: threading.Event) -> None:
    """Sweep every ``sweep_interval_s`` until ``stop`` is set. A failing pass (Redis
    down) is logged and tried again next interval; the loop itself never dies of it."""
    bots = BotQueue.of(svc.settings, svc.queue_redis)
    interval = svc.settings.sweep_interval_s
    alive = prefixed(svc.settings.key_prefix, SWEEPER_ALIVE)
    archived_at = 0.0
    while not stop.is_set():
        try:
            sweep_once(svc, bots)
            sweep_clocks(svc)
            expire_open_games(svc)
            expire_idle_games(svc)
            svc.redis.set(alive, str(time.time()), ex=max(1, int(interval * ALIVE_TTL_PASSES) + 1))
        except Exception:
            log.exception("sweep failed; trying again in %.1f s", interval)
        if time.monotonic() - archived_at >= ARCHIVE_EVERY_S:
            archived_at = time.monotonic()
            try:  # an archive outage must not make the bot passes look dead
                archive_games_over(svc)
            except Exception:
                log.exception("archiving pass failed; trying again in %.0f s", ARCHIVE_EVERY_S)
        stop.wait(interval)
