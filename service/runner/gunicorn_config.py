"""Gunicorn settings the API needs; load with ``gunicorn -c python:service.runner.gunicorn_config``.

This module and everything the master imports stay free of the app (Flask, redis-py,
...): gevent workers patch the standard library first thing after the fork, and only
then import the app, so no module holds an unpatched socket, lock or ssl reference.

- gevent workers (``service.runner.server.GeventWorker``): every connection is a
  greenlet; an idle SSE stream or long poll is parked on the process's stream hub and
  holds no thread and no Redis connection (``service.http.waits``). Header and body
  timeouts, problem+json for the server's own rejections, no ``Server`` banner
  (``service.runner.server``). ``tabletop serve --worker-class gthread`` gives the old
  thread-per-request model (``threads`` below), for comparison.
- ``on_starting`` raises the open-file limit in the master (the workers inherit it).
- ``pre_fork``: the new worker's heartbeat file is dated before the fork, so the
  master's ``timeout`` covers the worker's whole life, its boot included.
- ``post_fork``: a worker dies with its master (``PR_SET_PDEATHSIG``), so a master
  killed -9 leaves no worker behind.
- ``when_ready``: under ``tabletop up`` the master beats its liveness file (``up``
  restarts a stopped or deadlocked master).
- ``post_worker_init``: the app loaded, the worker moves every object it holds into
  the collector's permanent generation (``gc.freeze``), so full collections no longer
  walk them while requests wait.
- With ``PROMETHEUS_MULTIPROC_DIR`` set (an empty writable directory, in the
  environment of the master before it starts), every worker writes its metrics
  there and ``/metrics`` sums them; ``child_exit`` marks a dead worker's gauges dead.

Command-line options (``--bind``, ``--workers``, ``--threads``) override these.
"""

from __future__ import annotations

import os
from typing import Any

from service.settings import Settings  # plain data: nothing of the app comes with it

worker_class = "service.runner.server.GeventWorker"

worker_connections = 4096
"""Connections one gevent worker serves at once (above ``TABLETOP_STREAMS_PER_PROCESS``,
so that streams and long polls leave room for commands and health probes)."""

threads = 16
"""Threads per worker under ``gthread`` only: the most concurrent requests it holds."""

timeout = Settings.from_env().worker_timeout_s
"""Seconds a worker may stay silent before the master kills and replaces it
(``TABLETOP_WORKER_TIMEOUT_S``, 30). Gevent and gthread workers beat from their own
loop, beside the requests, so a long stream or poll never counts: only a blocked loop
or a stopped process does (it was 120 s, sized for request durations, which only
gunicorn's sync workers need)."""

keepalive = 5
"""Non-zero, or gunicorn's gevent worker skips the per-request header timeout
(``service.runner.server``: ``TABLETOP_HEADER_TIMEOUT_S`` replaces its value there)."""

graceful_timeout = 10
"""Seconds a stopping worker lets open requests finish. Streams and long polls are
cut after it (clients resume with ``Last-Event-ID`` / poll again); commands take
milliseconds."""

control_socket_disable = True
"""gunicorn >= 25.1 opens a control socket at one per-user path; two servers of one user
(tests, a bench beside a server) would take it from each other. Older versions ignore it."""


def child_exit(server: Any, worker: Any) -> None:
    """Tell prometheus_client a worker is gone (multiprocess mode only)."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


PR_SET_PDEATHSIG = 1
"""``prctl`` option: the signal a process receives when its parent dies (Linux)."""


def pre_fork(server: Any, worker: Any) -> None:
    """Date the new worker's heartbeat file now, in the master, before the fork.

    The master times a worker by that file's date, on the clock its own beats use; until
    the worker's first beat -- after its boot -- the file holds its creation date on
    another clock, which the timeout never reaches: a worker stopped or stuck anywhere
    between the fork and the end of its boot (an import that blocks) was never replaced.
    Dated here, its whole life counts against :data:`timeout` (a boot takes about a
    second). Beating in the worker's ``init_process`` instead left the moments after the
    fork uncovered (a loaded CI caught one)."""
    worker.tmp.notify()


def post_fork(server: Any, worker: Any) -> None:
    """A worker dies with its master (SIGKILL on the master's death, Linux): a master
    killed -9 leaves no worker behind holding the port. A master that died before this
    ran is caught by the parent check (the worker is then an orphan already)."""
    # ctypes only: the worker has not patched the standard library for gevent yet, so
    # nothing that holds a lock or a socket is imported here.
    import ctypes
    import signal
    import sys

    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != server.pid:
        os._exit(1)


def post_worker_init(worker: Any) -> None:
    """Freeze what the loaded app holds out of the cyclic collector's sight.

    Why: a worker holds some 60,000 long-lived objects once the app is imported (modules,
    schemas, routes, the engine's tables). Each full (generation 2) collection walked them
    all: measured in-process over 15 games, 8 full collections took 318 ms, the longest
    58 ms -- a pause during which a gevent worker answers no one (it showed as the worst
    command latency). Frozen, the same run's full collections took 10 ms, the longest
    1.7 ms. Objects made later (cached tables) are still collected as usual."""
    import gc

    gc.collect()  # what startup left as garbage goes now, not into the frozen set
    gc.freeze()


def when_ready(server: Any) -> None:
    """Under ``tabletop up``, the master touches its liveness file from a thread of its
    own (``service.runner.liveness``): a stopped or deadlocked master is restarted by
    ``up``. Not the workers: the master already replaces a worker silent for
    :data:`timeout`, and an overloaded worker slow to answer is no reason to restart
    the whole API (a flood would turn into an outage)."""
    from service.runner import liveness

    liveness.start_beating()


def on_starting(server: Any) -> None:
    """Raise the open-file limit (inherited by the workers: every idle stream is a file)."""
    from service.runner.server import raise_open_file_limit

    raise_open_file_limit()
