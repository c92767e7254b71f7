"""The bot worker process: RQ's worker, made to outlive Redis outages.

RQ's own worker quits on the first unexpected exception of its main loop, and a Redis
outage while a job runs is one: the job fails with ``ConnectionError``, RQ's failure
handling fails again on the dead connection, and the worker logs "unhandled exception,
quitting". Its scheduler is a forked child that dies of the same outage and is revived
only by RQ's maintenance (about 10 minutes later), or is orphaned when the worker is
killed. :class:`OutageProofWorker` changes three things, and nothing else of RQ's:

1. **The worker survives.** :meth:`OutageProofWorker.work` runs RQ's loop inside its own
   loop: when RQ's loop ends without a stop request (an outage, or any other crash of
   the loop), the worker waits until Redis answers again (backoff from 0.25 s to
   :data:`MAX_BACKOFF_S`), registers again and resumes. A stop request (SIGTERM/SIGINT)
   still ends it, during an outage too.
2. **The job in flight costs a retry.** The job that was running when the loop broke
   is still "started" in Redis, on nobody. Once Redis answers, the worker hands it to
   RQ's own failure handling (``handle_job_failure``), which schedules its next retry
   (``BOT_RETRY_INTERVALS``) or fails it once the retries are used up. A bot turn is
   idempotent (expected version + the bot's idempotency key), so a turn that was
   written just before the outage is answered from its record, not played twice.
3. **Scheduler and heartbeat run in a thread of the worker** (:class:`Duties`), not in
   a forked child, so nothing outlives the worker (no orphan) and nothing needs
   reviving after an outage. Every :data:`DUTY_INTERVAL_S` it

   - writes the heartbeat ``<p>worker:alive:<name>`` (see ``events.redis_adapter.keys``) with a TTL of
     :data:`HEARTBEAT_TTL_S`: host, pid, and the job it runs; and its name in the index
     ``<p>workers``. ``tabletop health worker``
     reads it (a dead worker drops out within the TTL) and the sweeper uses it to tell
     a job abandoned by a dead worker from a running one;
   - moves due scheduled jobs (retries) to their queues, as RQ's scheduler does, under
     RQ's own per-queue scheduler lock but with a TTL of :data:`SCHEDULER_LOCK_TTL_S`
     instead of RQ's 61 s: when the worker holding it dies, another one takes over
     within seconds.

Failure modes: while Redis is down the worker logs once per attempt and waits; a job
cannot be taken or finished then. A worker killed with SIGKILL leaves its job
"started": its heartbeat expires and the sweeper (``workers/sweeper.py``) re-enqueues
the turn.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import threading
import time
from typing import Any

import redis
from rq import SimpleWorker, Worker
from rq.job import Job, JobStatus
from rq.queue import Queue
from rq.scheduler import RQScheduler
from rq.scripts import acquire_or_refresh_lock, release_lock
from rq.worker.base import StopRequested

from events.redis_adapter.keys import WORKERS, prefixed, worker_alive_key

log = logging.getLogger(__name__)

DUTY_INTERVAL_S = 1.0
"""How often a worker refreshes its heartbeat and moves due scheduled jobs."""

HEARTBEAT_TTL_S = 5
"""A worker's heartbeat outlives its last refresh by this many seconds: a dead worker is
known as dead at most this long after its death."""

INDEX_KEEP_S = 3600
"""A worker silent this long leaves the index of workers (``<p>workers``)."""

SCHEDULER_LOCK_TTL_S = 5
"""TTL of the per-queue scheduler lock a worker holds while it moves scheduled jobs."""

MIN_BACKOFF_S = 0.25
MAX_BACKOFF_S = 1.0
"""Waits between attempts to reach Redis again: short, so that work resumes within about
a second of Redis answering (one PING per attempt is no load)."""

CONNECTION_ERRORS = (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)

PREPARE_DELAY_ENV = "TABLETOP_WORKER_PREPARE_DELAY_S"
"""Fault injection for tests only (unset in production): seconds a worker waits between
taking a job off its queue and marking it "started", so a test can kill it right there
(the sweeper's "popped" state, ``workers/sweeper.py``)."""


class OutageProofMixin:
    """See the module docstring. Mixed into RQ's ``SimpleWorker`` and ``Worker``."""

    # RQ's dequeue loop retries a lost connection by itself; keep its waits short too.
    exponential_backoff_factor = 1.5
    max_connection_wait_time = MAX_BACKOFF_S

    key_prefix: str = "tt:"
    _in_flight: tuple[Job, Queue] | None = None
    _duties: Duties | None = None

    def execute_job(self, job: Job, queue: Queue) -> None:
        self._in_flight = (job, queue)
        super().execute_job(job, queue)  # type: ignore[misc]
        # Cleared only when RQ's handling returned: an exception (a dead Redis in the
        # failure handling) leaves it for _recover() to hand over once Redis answers.
        self._in_flight = None

    def prepare_job_execution(self, job: Job, remove_from_intermediate_queue: bool = False) -> None:
        delay = float(os.environ.get(PREPARE_DELAY_ENV) or 0)
        if delay > 0:
            time.sleep(delay)
        super().prepare_job_execution(job, remove_from_intermediate_queue)  # type: ignore[misc]

    def request_stop(self, signum: Any, frame: Any) -> None:
        # RQ raises StopRequested for a stop while idle without setting _stop_requested;
        # remember it, or work() would take the ended loop for a crash and resume.
        self._stop_requested = True
        try:
            super().request_stop(signum, frame)  # type: ignore[misc]
        except CONNECTION_ERRORS:
            pass  # RQ notes the request in Redis; during an outage the flag must do

    @property
    def current_job_id(self) -> str | None:
        flight = self._in_flight
        return flight[0].id if flight else None

    def work(self, burst: bool = False, **options: Any) -> bool:  # type: ignore[override]
        """RQ's work loop, restarted after anything but a stop request (see above)."""
        options.pop("with_scheduler", None)  # the scheduler is a duty (see Duties)
        self._duties = Duties(self, self.key_prefix)  # type: ignore[arg-type]
        self._duties.start()
        worked = False
        try:
            while True:
                try:
                    worked = super().work(burst=burst, **options) or worked  # type: ignore[misc]
                except StopRequested:
                    break
                except Exception:
                    name = self.name  # type: ignore[attr-defined]
                    log.exception("worker %s: its loop broke", name)
                if burst or self._stop_requested:  # type: ignore[attr-defined]
                    break
                if not self._recover():
                    break
        finally:
            self._duties.stop()
        return worked

    def _recover(self) -> bool:
        """Wait until Redis answers, hand the job in flight to RQ's failure handling, and
        clear the worker's registration for a fresh start. False if a stop was requested."""
        name = self.name  # type: ignore[attr-defined]
        wait = MIN_BACKOFF_S
        while True:
            try:
                if self._stop_requested:  # type: ignore[attr-defined]
                    return False
                self.connection.ping()  # type: ignore[attr-defined]
                break
            except StopRequested:
                return False
            except CONNECTION_ERRORS as exc:
                log.warning(
                    "worker %s: Redis unreachable (%s); retrying in %.2f s", name, exc, wait
                )
                try:
                    time.sleep(wait)
                except StopRequested:
                    return False
                wait = min(wait * 2, MAX_BACKOFF_S)
        log.warning("worker %s: Redis answers again; resuming", name)
        with contextlib.suppress(Exception):  # its thread may be gone already
            self.unsubscribe()  # type: ignore[attr-defined]
        try:
            if self._in_flight is not None:
                job, queue = self._in_flight
                self._in_flight = None
                job.refresh()
                if job.get_status(refresh=False) == JobStatus.STARTED:
                    log.warning(
                        "worker %s: job %s was cut off by the outage; retrying it", name, job.id
                    )
                    self.handle_job_failure(  # type: ignore[attr-defined]
                        job, queue, exc_string="Redis connection lost while the job ran"
                    )
            self.register_death()  # type: ignore[attr-defined]  # RQ refuses a live name twice
        except StopRequested:
            return False
        except Exception:  # the job's hash may be gone; the sweeper covers it
            log.exception("worker %s: cleaning up after the outage failed", name)
        return not self._stop_requested  # type: ignore[attr-defined]


# The mixin's work() takes RQ's keyword options as **options and passes them on.
class OutageProofSimpleWorker(OutageProofMixin, SimpleWorker):  # type: ignore[misc]
    """Runs jobs in the worker process (``tabletop worker --worker-class simple``)."""


# The mixin's work() takes RQ's keyword options as **options and passes them on.
class OutageProofForkWorker(OutageProofMixin, Worker):  # type: ignore[misc]
    """Runs each job in a forked work horse (``tabletop worker --worker-class fork``)."""


class Duties:
    """The worker's heartbeat and scheduler, in one daemon thread with its own Redis
    connections (RQ's scheduler object builds its own pool). Errors are logged (once per
    outage) and the next tick tries again; the thread ends with :meth:`stop`."""

    def __init__(self, worker: OutageProofMixin, key_prefix: str) -> None:
        self._worker = worker
        rq_worker: Any = worker
        self._queues: list[str] = [q.name for q in rq_worker.queues]
        self._scheduler = RQScheduler(
            rq_worker.queues, connection=rq_worker.connection, name=rq_worker.name
        )
        self._name = rq_worker.name
        self._key = worker_alive_key(key_prefix, rq_worker.name)
        self._index = prefixed(key_prefix, WORKERS)
        self._identity = {"host": socket.gethostname(), "pid": os.getpid(), "queues": self._queues}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="worker-duties", daemon=True)
        self._failing = False

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        # Redis down at exit: the locks and the heartbeat expire by themselves.
        with contextlib.suppress(Exception):
            conn = self._scheduler.connection
            for name in self._queues:
                release_lock(conn, RQScheduler.get_locking_key(name), self._scheduler.name)
            conn.delete(self._key)
            conn.zrem(self._index, self._name)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.tick()
                if self._failing:
                    log.warning("worker duties: Redis answers again")
                self._failing = False
            except Exception as exc:  # noqa: BLE001 - the next tick tries again
                if not self._failing:
                    log.warning("worker duties: %s: %s", type(exc).__name__, exc)
                self._failing = True
            self._stop.wait(DUTY_INTERVAL_S)

    def tick(self) -> None:
        """One heartbeat and one scheduler pass."""
        conn = self._scheduler.connection
        now = time.time()
        beat = {**self._identity, "job": self._worker.current_job_id, "at": now}
        pipe = conn.pipeline(transaction=False)
        pipe.set(self._key, json.dumps(beat), ex=HEARTBEAT_TTL_S)
        # The index health checks read instead of scanning the keyspace; old names go.
        pipe.zadd(self._index, {self._name: now})
        pipe.zremrangebyscore(self._index, "-inf", now - INDEX_KEEP_S)
        pipe.execute()
        owned = {
            name
            for name in self._queues
            if acquire_or_refresh_lock(
                conn, RQScheduler.get_locking_key(name), self._scheduler.name, SCHEDULER_LOCK_TTL_S
            )
            in ("acquired", "refreshed")
        }
        if owned:
            self._scheduler._acquired_locks = owned  # RQ reads them in enqueue_scheduled_jobs
            self._scheduler.prepare_registries(owned)
            self._scheduler.enqueue_scheduled_jobs()


def live_workers(client: Any, key_prefix: str) -> list[dict[str, Any]]:
    """The heartbeats of every live worker (the index, then their keys: the keys' TTL
    decides, not the index's scores, so clocks of other hosts do not matter)."""
    names = [
        n.decode() if isinstance(n, bytes) else n
        for n in client.zrange(prefixed(key_prefix, WORKERS), 0, -1)
    ]
    if not names:
        return []
    raws = client.mget([worker_alive_key(key_prefix, name) for name in names])
    return [{**json.loads(raw), "name": name} for name, raw in zip(names, raws, strict=True) if raw is not None]


def read_heartbeat(client: Any, key_prefix: str, name: str) -> dict[str, Any] | None:
    """The live heartbeat of worker ``name``, or None if it expired (the worker is dead,
    or cut off from Redis for longer than :data:`HEARTBEAT_TTL_S`)."""
    raw = client.get(worker_alive_key(key_prefix, name))
    return None if raw is None else json.loads(raw)
