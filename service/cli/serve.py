"""``tabletop serve``: the HTTP API under gunicorn.

The default worker class is ``gevent`` (``service.runner.server``): long polls
(``wait=``) and event streams hold a request open for up to ``TABLETOP_SSE_MAX_S``,
and under gevent an idle one costs no thread. ``gthread`` is the old model (one thread
per open request, ``--threads``); ``sync`` is there for benchmarks and plain
request/response loads (a long poll would block a whole ``sync`` worker).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from service.runner.gunicorn import API_FACTORY, WORKER_CLASSES, ServerOptions, exec_serve
from service.settings import Settings


def add_parser(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the HTTP API under gunicorn")
    p.add_argument("--bind", default="127.0.0.1:8000", help="host:port to listen on")
    p.add_argument("--workers", type=int, default=default_workers(), help="worker processes")
    p.add_argument("--worker-class", choices=tuple(WORKER_CLASSES), default="gevent")
    p.add_argument(
        "--threads",
        type=int,
        help="threads per gthread worker (default: the API's gunicorn config)",
    )
    p.add_argument("--access-log", action="store_true", help="log every request to stdout")
    p.add_argument(
        "--app", default=API_FACTORY, help="WSGI app factory module:function (benchmarks)"
    )
    p.set_defaults(run=run)


def default_workers() -> int:
    """One worker per core, at least two (Redis and the bots need the rest)."""
    return max(2, os.cpu_count() or 1)


def run(args: argparse.Namespace) -> int:
    from service.bootstrap import queue_redis_url

    try:  # fail now on a bad TABLETOP_* value, not in each worker
        queue_redis_url(Settings.from_env())  # a cluster store needs a queue Redis
    except ValueError as exc:
        print(f"tabletop serve: {exc}", file=sys.stderr)
        return 2
    options = ServerOptions(
        args.bind, args.workers, args.worker_class, args.threads, args.access_log
    )
    # A fresh interpreter (same pid): this one has imported redis-py and more, which
    # gevent workers must not inherit unpatched (service.runner.server).
    exec_serve(options, args.app)
    return 0  # not reached
