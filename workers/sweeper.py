"""The sweeper: no game waits on a bot for ever, and no game stays open for ever.

A bot job can be lost: its worker was killed mid-job, Redis failed over between the
append and the enqueue, its retries ran out. The notifier keeps ``<p>bots:waiting``
(see ``events.keys``): every running game whose next turn belongs to a bot, scored by
when that wait began. :func:`sweep_once` takes the members older than
``settings.bot_stall_s`` and, for each one still waiting on a bot at its current
version, enqueues the turn again under a fresh job id (``...-r<time>``; RQ would
refuse the original id while the dead job's hash exists) -- with the same idempotency
key, so a turn is played once however many of its jobs run. It then bumps the score
to now, so the next attempt comes after another stall period at the earliest.

A turn whose original job is still queued or scheduled for retry is left alone: the
workers are behind, not dead, and another job would only lengthen the queue.

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
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import UTC, datetime

from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus

from engine.table import OPEN, RUNNING
from events.keys import BOTS_WAITING, SWEEPER_ALIVE, prefixed
from service.app.errors import GameNotFound
from service.app.notify import BotQueue, bot_job_id, bots_to_act
from service.bootstrap import Services

log = logging.getLogger(__name__)

SWEEP_BATCH = 500
"""Stalled games handled per pass (the oldest first); the rest wait for the next pass."""

PENDING = frozenset({JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED})
"""States of a job that will still run by itself."""

ALIVE_TTL_PASSES = 3
"""The heartbeat expires after this many sweep intervals without a pass."""


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


def sweep_once(svc: Services, bots: BotQueue, now: float | None = None) -> list[str]:
    """One pass; returns the ids of the jobs it enqueued."""
    now = time.time() if now is None else now
    waiting = prefixed(svc.settings.key_prefix, BOTS_WAITING)
    stalled = svc.redis.zrangebyscore(
        waiting, "-inf", now - svc.settings.bot_stall_s, start=0, num=SWEEP_BATCH
    )
    enqueued: list[str] = []
    for member in stalled:
        game_id = member.decode() if isinstance(member, bytes) else member
        enqueued += _sweep_game(svc, bots, waiting, game_id, now)
    return enqueued


def _sweep_game(svc: Services, bots: BotQueue, waiting: str, game_id: str, now: float) -> list[str]:
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
        if _pending(svc, bot_job_id(game_id, table.version, seat)):
            continue  # the workers are behind, not dead: look again next pass
        attempt = str(int(now * 1000))
        level = table.seats[seat].bot  # to the queue of its cost, as the notifier does
        if bots.enqueue(game_id, table.version, seat, attempt=attempt, level=level):
            enqueued.append(bot_job_id(game_id, table.version, seat, attempt))
            log.warning(
                "game %s waited on bot seat %s at version %s; re-enqueued",
                game_id,
                seat,
                table.version,
            )
    if enqueued or not seats:
        # Not before another stall period. (A running game waiting on a person here had
        # its index update lost; it is not removed -- a bot's wait recorded meanwhile
        # would be lost with it -- the bump only makes it cheap: one look per period.)
        svc.redis.zadd(waiting, {game_id: now}, xx=True)
    return enqueued


def _pending(svc: Services, job_id: str) -> bool:
    """Whether the job exists and will still run by itself."""
    try:
        return Job.fetch(job_id, connection=svc.queue_redis).get_status() in PENDING
    except NoSuchJobError:
        return False


def run(svc: Services, stop: threading.Event) -> None:
    """Sweep every ``sweep_interval_s`` until ``stop`` is set. A failing pass (Redis
    down) is logged and tried again next interval; the loop itself never dies of it."""
    bots = BotQueue.of(svc.settings, svc.queue_redis)
    interval = svc.settings.sweep_interval_s
    alive = prefixed(svc.settings.key_prefix, SWEEPER_ALIVE)
    while not stop.is_set():
        try:
            sweep_once(svc, bots)
            expire_open_games(svc)
            svc.redis.set(alive, str(time.time()), ex=max(1, int(interval * ALIVE_TTL_PASSES) + 1))
        except Exception:
            log.exception("sweep failed; trying again in %.1f s", interval)
        stop.wait(interval)
