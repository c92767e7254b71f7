"""Locks for critical sections that never wait: the operating system's lock, even under gevent.

Why: under gevent workers (``service.runner.server``) ``threading.Lock`` is gevent's
cooperative lock, whose ``acquire`` is Python code around a semaphore: 1.16 µs per
``with`` on the bench VM, unloaded, against 0.51 µs for the OS's lock, the call around
it included (``bench/locks_bench.py``) -- and a play request took several of them (the
rate limiter's lease, the table cache, every metric it counts). Under load the rate
limiter's per-request path went from 25 to 11 µs with this and a cheaper token check
(``docs/bench-rounds.md``, *Twelfth round*).

A :func:`section_lock` is the OS's lock (``_thread.allocate_lock`` as the interpreter
has it, not as gevent patched it). It is safe only around code that cannot switch to
another greenlet while holding it: dict and arithmetic work, no I/O on a socket, no
gevent call, no logging, nothing that waits. Under gevent every greenlet of a process
runs on one OS thread and switches only where it would wait, so such a lock is never
found held by another greenlet; between real threads (gthread workers, tests) it is
an ordinary lock. A section that may wait -- a send, a connection, a thread start --
keeps ``threading.Lock``: another greenlet blocking on a held OS lock would stop the
whole process. The live hub (``service.http.live``) first stalled its workers with this
lock: it started its reader thread inside the section, and starting a thread waits. It
now starts the reader outside, and keeps gevent's lock for its sends only.
"""

from __future__ import annotations

import _thread
import sys
from typing import Any


def section_lock() -> Any:
    """A new OS lock for a critical section that never waits (see the module)."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None:
        return monkey.get_original("_thread", "allocate_lock")()
    return _thread.allocate_lock()
