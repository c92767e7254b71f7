"""``tabletop worker``: an RQ worker that plays bot turns (``workers.bots.play_bot_turn``).

It listens on both bot queues (``service.app.notify.bot_queue_names``): the cheap
turns' ``TABLETOP_QUEUE_NAME`` first, then ``<name>-strong`` -- RQ takes from its
queues in that order, so a random or greedy turn never waits behind queued strong
turns. It runs RQ's scheduler too, which moves
retried jobs (``Retry`` with intervals) back to the queue when they are due; several
workers share one scheduler through RQ's lock.

``--worker-class simple`` (the default) runs jobs in the worker process itself: a bot
turn is a few milliseconds of Python, cheaper than the fork RQ's default ``Worker``
makes per job, and the process keeps its table cache and Redis pool between turns.
Job timeouts still hold (RQ's SIGALRM death penalty). ``fork`` isolates each job in a
child process. SIGTERM or SIGINT: finish the current job, then stop (RQ's warm shutdown).

RQ's keys are on ``TABLETOP_QUEUE_REDIS_URL`` (default: the store's Redis), the game
streams on ``TABLETOP_REDIS_URL``, which may be a cluster; on a cluster without a
queue URL the worker refuses to start (``service.bootstrap.queue_redis_url``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from rq import Queue

from service.app.notify import bot_queue_names
from service.bootstrap import build
from service.runner import liveness
from workers import bots
from workers.rq_worker import OutageProofForkWorker, OutageProofSimpleWorker

WORKER_CLASSES = {"simple": OutageProofSimpleWorker, "fork": OutageProofForkWorker}


def add_parser(sub: Any) -> None:
    p = sub.add_parser("worker", help="run an RQ worker that plays bot turns")
    p.add_argument("--burst", action="store_true", help="quit once the queue is empty")
    p.add_argument("--worker-class", choices=sorted(WORKER_CLASSES), default="simple")
    p.add_argument("--name", help="worker name (default: RQ's random one)")
    p.add_argument("--log-level", default="INFO", help="RQ's log level (INFO logs every job)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        svc = build()
    except ValueError as exc:  # bad settings, e.g. a cluster store without a queue Redis
        print(f"tabletop worker: {exc}", file=sys.stderr)
        return 2
    bots.use_services(svc)
    # Order matters: cheap turns first (see the module docstring). RQ lives on its own
    # plain Redis (TABLETOP_QUEUE_REDIS_URL) when the store is a cluster; the heartbeat
    # goes there too, under the store's key prefix.
    rq_redis = svc.queue_redis
    queues = [Queue(name, connection=rq_redis) for name in bot_queue_names(svc.settings)]
    worker = WORKER_CLASSES[args.worker_class](queues, connection=rq_redis, name=args.name)
    worker.key_prefix = svc.settings.key_prefix  # where its heartbeat goes
    liveness.start_beating()  # under `up`: its watchdog restarts a worker that stops running
    worker.work(burst=args.burst, logging_level=args.log_level)
    return 0
