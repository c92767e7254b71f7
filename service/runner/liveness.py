"""Liveness of ``tabletop up``'s children: a child that stops working is restarted like a dead one.

A supervisor that only restarts children that *exit* leaves a hung one in place for
good: a process stopped (``SIGSTOP``, a frozen container), deadlocked, or a server
that accepts connections and never answers. Each child therefore has a probe, run by
:class:`Watchdog` every :data:`PROBE_INTERVAL_S` in a thread of ``up`` (a probe may
wait for its timeout; the supervisor's loop must not):

- **Redis**: ``PING`` answers within :data:`PROBE_TIMEOUT_S` (an error reply counts as
  alive: ``LOADING`` while it replays its AOF, ``BUSY`` during a long script);
- **bot workers, the projector, the sweeper, the API's gunicorn master**: each is given
  a file (:data:`LIVENESS_FILE_ENV`) and touches it every :data:`BEAT_INTERVAL_S` from a
  thread of its own (:func:`start_beating`); the probe reads its age. A file, not a
  Redis key, so a Redis outage -- when these processes wait and retry, as they should --
  never looks like a hang of theirs. For the API the master beats, not an HTTP probe:
  the master replaces its own workers when they fall silent (gunicorn's ``timeout``),
  and an API slow under a flood is busy, not hung -- restarting it would turn the
  flood into an outage for everyone.

A child whose probes have failed for longer than ``RestartPolicy.hang_after_s`` (from the
first failed probe to the latest) is killed with its process group and restarted
through the same path as a dead one: same backoff, same crash-loop limit
(``service/runner/supervisor.py``).

What this catches: a process that stops running (stopped, frozen, deadlocked holding
the interpreter's lock), and a server that stops answering. What it does not: one
thread of a running Python child stuck while its beat thread goes on -- the loops
bound their own waits (RQ's job timeout, Redis reads that end when a hung Redis is
killed by this very watchdog).
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

LIVENESS_FILE_ENV = "TABLETOP_LIVENESS_FILE"
"""The file a supervised Python child touches to say it runs (set by ``up`` per child)."""

BEAT_INTERVAL_S = 1.0
"""How often a child touches its liveness file."""

BEAT_FRESH_S = 5.0
"""A liveness file touched longer ago than this fails its probe (5 missed beats)."""

PROBE_INTERVAL_S = 1.0
"""How often the watchdog runs every probe."""

PROBE_TIMEOUT_S = 2.0
"""How long the probe of Redis may wait for its answer."""

Probe = Callable[[], bool]
"""True when the child showed it works; False (or an exception) when it did not."""


def start_beating(env: dict[str, str] | None = None) -> threading.Thread | None:
    """Touch the file named by :data:`LIVENESS_FILE_ENV` every :data:`BEAT_INTERVAL_S`,
    from a daemon thread, for as long as this process runs; None (and nothing started)
    when the variable is unset -- a child not run by ``up``. Never raises: a file that
    cannot be written is tried again at the next beat (and its probe fails meanwhile)."""
    path = (env if env is not None else os.environ).get(LIVENESS_FILE_ENV)
    if not path:
        return None
    thread = threading.Thread(target=_beat_forever, args=(Path(path),), name="liveness", daemon=True)
    thread.start()
    return thread


def _beat_forever(path: Path) -> None:
    while True:
        with contextlib.suppress(OSError):
            path.touch()
        time.sleep(BEAT_INTERVAL_S)


def beat_age(path: Path) -> float | None:
    """Seconds since ``path`` was last touched; None if it cannot be read (missing)."""
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return None


def file_probe(path: Path, fresh_s: float = BEAT_FRESH_S) -> Probe:
    """Passes while ``path`` was touched within ``fresh_s`` seconds."""

    def probe() -> bool:
        age = beat_age(path)
        return age is not None and age <= fresh_s

    return probe


def redis_probe(url: str, timeout_s: float = PROBE_TIMEOUT_S) -> Probe:
    """Passes when the Redis at ``url`` answers ``PING`` -- with PONG or any error reply
    (a server that replies is running) -- within ``timeout_s``."""
    # Imported here: gunicorn's master imports this module (its beat) and must hold no
    # redis-py before the gevent workers patch the standard library.
    import redis

    client = redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)

    def probe() -> bool:
        try:
            return bool(client.ping())
        except (redis.exceptions.BusyLoadingError, redis.ResponseError):  # LOADING, OOM: it answered
            return True

    return probe


class Watched(Protocol):
    """What the watchdog needs of a supervised child."""

    name: str
    probe: Probe | None
    failing_since: float | None
    probed_at: float


class Watchdog:
    """Runs the probes of ``children()`` every :data:`PROBE_INTERVAL_S` in a daemon thread
    and records, in ``time.monotonic()`` seconds, when each child was last probed
    (``probed_at``) and the first failed probe since its last pass (``failing_since``,
    None while it passes). It only records; the supervisor judges and kills (in its own
    thread), by the span between the two -- never by the clock alone, so time in which
    no probe ran (``up`` itself stopped with Ctrl-Z, then resumed) condemns nobody."""

    def __init__(self, children: Callable[[], Iterable[Watched]]) -> None:
        self._children = children
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)

    def start(self) -> Watchdog:
        self._thread.start()
        return self

    def stop(self) -> None:
        """End the thread (waits for the probe in hand); a no-op if it never started."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(PROBE_TIMEOUT_S * 3)

    def _run(self) -> None:
        while not self._stop.wait(PROBE_INTERVAL_S):
            self.probe_all()

    def probe_all(self) -> None:
        """One probe of every child that has one (a failing probe changes nothing)."""
        for child in list(self._children()):
            if child.probe is None:
                continue
            passed = _passes(child.probe)
            now = time.monotonic()
            if passed:
                child.failing_since = None
            elif child.failing_since is None:
                child.failing_since = now
            child.probed_at = now


def _passes(probe: Probe) -> bool:
    try:
        return probe()
    except Exception:  # noqa: BLE001 - refused, timed out, reset: it did not answer
        return False
