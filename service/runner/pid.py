"""This process's id, kept in memory and refreshed after every fork.

Why: redis-py's connection pool (``_checkpid``) and prometheus_client's multiprocess
values check ``os.getpid()`` on every call to notice a fork, and that system call
showed among the largest self-time entries of a request (py-spy, API worker). The id
only changes in a forked child, so :func:`current` answers from memory and
``os.register_at_fork`` refreshes it in every child (``os.fork`` runs the hooks;
gevent's and multiprocessing's forks go through it, RQ's work horses too).

Kept free of heavy imports: the gunicorn master may import it.
"""

from __future__ import annotations

import os

_pid = os.getpid()


def _refresh() -> None:
    global _pid
    _pid = os.getpid()


os.register_at_fork(after_in_child=_refresh)


def current() -> int:
    """``os.getpid()``, without the system call."""
    return _pid


def fast_multiprocess_values() -> None:
    """Make prometheus_client's multiprocess values (when ``PROMETHEUS_MULTIPROC_DIR`` is
    set) check for a fork with :func:`current` instead of ``os.getpid``, and guard them
    with an OS lock (``service.locks``: under gevent a play request counts three or four
    values, each under gevent's cooperative lock otherwise). Call before the first metric is made (their
    values are built from ``values.ValueClass`` then).

    The lock is the one ``MultiProcessValue`` makes from its module's ``Lock`` when
    called; its sections update a memory map (no socket, nothing that waits). Should a
    release of prometheus_client make it otherwise, the values keep its own lock."""
    from prometheus_client import values

    from service.locks import section_lock

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR") or os.environ.get("prometheus_multiproc_dir"):
        own = getattr(values, "Lock", None)
        values.Lock = section_lock  # type: ignore[attr-defined,assignment]
        try:
            values.ValueClass = values.MultiProcessValue(process_identifier=current)
        finally:
            if own is None:
                del values.Lock  # type: ignore[attr-defined]
            else:
                values.Lock = own  # type: ignore[attr-defined,assignment]
