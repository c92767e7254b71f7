"""Child processes of ``tabletop up``: start them, restart the ones that die, stop them all.

Each child runs in a process group of its own, for two reasons: a Ctrl-C at the
terminal reaches only ``up`` (which then stops the children in order, instead of all of
them at once and Redis possibly first), and stopping a child reaches everything it
started (gunicorn's workers, RQ's scheduler process) with one ``killpg``. On Linux a
child also gets SIGTERM if ``up`` itself dies without cleaning up (``PR_SET_PDEATHSIG``;
the signal follows the death of the *thread* that started the child, so children are
only ever started from ``up``'s main thread).

Restarts (:meth:`Supervisor.check`): a child that exits on its own is restarted with
the same command line and environment, after a pause that doubles with each death of
that child within the policy's window (``first_backoff_s``, 2x, ... up to
``max_backoff_s``); one log line per death and per restart. Before the restart, what
is left of the dead child's group (gunicorn workers of a killed master, the scheduler
of a killed RQ worker) is killed, so nothing of the old child outlives it -- and, for
the API, the old workers no longer hold the port. No child's death stops another.
More than ``max_restarts`` deaths of one child within ``window_s`` is a crash loop:
:class:`CrashLoop` is raised and ``up`` stops everything.

Hangs: a child started with a probe (``service/runner/liveness.py``) whose probes have
failed for longer than ``hang_after_s`` -- from the first failed probe to the latest, so
a stretch in which no probe ran is no evidence -- is killed with its group (one log line
says so), then dies and is restarted like any other (its death counts toward the crash
loop).

Guarantee: after :meth:`Supervisor.stop_all` returns, no process of any child's group
is left (SIGTERM, then SIGKILL after the grace period).
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.runner.liveness import Probe

PR_SET_PDEATHSIG = 1
"""``prctl`` option: the signal a process receives when its parent dies (Linux)."""

GRACE_S = 20.0
"""How long a child may take to stop after SIGTERM before it is killed."""

LEFTOVER_WAIT_S = 10.0
"""How long killed members of a dead child's group may take to disappear."""


def die_with_parent(signum: int = signal.SIGTERM) -> None:
    """Have the kernel send ``signum`` to this process when its parent dies (Linux only,
    best effort; elsewhere a no-op). Safe in a ``preexec_fn`` and after a fork."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signum)


def _die_with_parent() -> None:
    """``preexec_fn``: SIGTERM this child when ``up`` dies."""
    die_with_parent(signal.SIGTERM)


def child_popen_options() -> dict[str, Any]:
    """Popen options for a supervised child: own process group, dies with its parent."""
    return {"process_group": 0, "preexec_fn": _die_with_parent}


@dataclass(frozen=True, slots=True)
class RestartPolicy:
    """When to restart a dead child and when to give up (see the module docstring)."""

    max_restarts: int = 5
    window_s: float = 60.0
    first_backoff_s: float = 0.5
    max_backoff_s: float = 15.0
    hang_after_s: float = 20.0
    """A child whose probes have failed for longer than this is hung: killed, then
    restarted; 0 = never (only deaths count)."""
    start_grace_s: float = 10.0
    """A (re)started child is not judged hung before this: its imports and first
    connections take seconds on a loaded machine, and a failed probe then says only that
    it has not beaten yet (a test run under load, with ``--hang-after 3``, killed every
    child 3 s after each start, in a loop, until up gave up)."""

    def backoff(self, recent_deaths: int) -> float:
        """The pause before the restart that follows the ``recent_deaths``-th death."""
        exponent = max(0, recent_deaths - 1)
        return float(min(self.max_backoff_s, self.first_backoff_s * 2**exponent))


@dataclass
class Child:
    """One supervised process (its pid is also its process group id); restarted in place."""

    name: str
    argv: list[str]
    process: subprocess.Popen[bytes]
    log_file: Path | None = None
    """A log the child writes itself (Redis): its tail goes into a crash-loop report."""
    deaths: deque[float] = field(default_factory=deque)
    restart_at: float | None = None
    restarts: int = 0
    probe: Probe | None = None
    """How the watchdog tells this child works (None: only its exit is watched)."""
    failing_since: float | None = None
    """When its probe first failed since it last passed or the child was (re)started
    (``time.monotonic()``; None while it passes). Set by the watchdog."""
    probed_at: float = 0.0
    """When the watchdog last probed it, passing or not (``service.runner.liveness``)."""
    started_at: float = field(default_factory=time.monotonic)
    """When its current process was started (``time.monotonic()``)."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Variables of this child alone, on top of the supervisor's (its liveness file)."""

    @property
    def pid(self) -> int:
        return self.process.pid


class CrashLoop(Exception):
    """A child died more than the policy allows within its window."""

    def __init__(self, child: Child, policy: RestartPolicy) -> None:
        self.child = child
        super().__init__(
            f"crash loop: {child.name} died {len(child.deaths)} times within "
            f"{policy.window_s:g} s (last: {describe_exit(child.process.returncode)})"
        )

    def report(self) -> str:
        """The message, with the tail of the child's own log if it has one."""
        tail = _tail(self.child.log_file) if self.child.log_file else ""
        return f"{self}\n{tail}" if tail else str(self)


@dataclass
class Supervisor:
    """Starts children with one environment and keeps them running; see the module docstring."""

    env: Mapping[str, str]
    say: Callable[[str], None] = print
    policy: RestartPolicy = field(default_factory=RestartPolicy)
    children: list[Child] = field(default_factory=list)

    def start(
        self,
        name: str,
        argv: Sequence[str],
        log_file: Path | None = None,
        *,
        probe: Probe | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Child:
        """Start ``argv`` as child ``name`` (stdout and stderr shared with ``up``), with
        ``env`` on top of the supervisor's environment and ``probe`` to tell a hang."""
        child_env = dict(env or {})
        child = Child(name, list(argv), self._spawn(argv, child_env), log_file, probe=probe, env=child_env)
        self.children.append(child)
        return child

    def _spawn(self, argv: Sequence[str], env: Mapping[str, str]) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            list(argv), env={**self.env, **env}, stdin=subprocess.DEVNULL, **child_popen_options()
        )

    def check(self, now: float | None = None) -> None:
        """Notice dead children, schedule their restarts, restart the ones that are due.

        Raises :class:`CrashLoop` for a child past the policy's limit (the others are
        left running: the caller stops them). Cheap: one ``waitpid`` per child.
        """
        now = time.monotonic() if now is None else now
        for child in self.children:
            if child.restart_at is None:
                if child.process.poll() is None and self._hung(child):
                    kill_group(child.pid)  # reaped just below: restarted as a death
                if child.process.poll() is not None:
                    self._died(child, now)
            elif now >= child.restart_at:
                child.process = self._spawn(child.argv, child.env)
                child.started_at = time.monotonic()
                child.failing_since = None  # the old process's failures are not the new one's
                child.restart_at = None
                child.restarts += 1
                self.say(f"restarted {child.name} (pid {child.pid}, restart {child.restarts})")

    def _hung(self, child: Child) -> bool:
        # Judged by the probes' own times, not by the clock: a stretch in which no probe
        # ran (up stopped, then resumed) is no evidence against any child.
        if child.probe is None or child.failing_since is None or self.policy.hang_after_s <= 0:
            return False
        if child.probed_at - child.started_at < self.policy.start_grace_s:
            return False  # still starting
        silent = child.probed_at - child.failing_since
        if silent <= self.policy.hang_after_s:
            return False
        self.say(f"{child.name} (pid {child.pid}) has not shown it works for {silent:.0f} s; killing it")
        return True

    def _died(self, child: Child, now: float) -> None:
        kill_group(child.pid)  # what the dead leader left: workers, a scheduler
        child.deaths.append(now)
        while child.deaths and child.deaths[0] < now - self.policy.window_s:
            child.deaths.popleft()
        if len(child.deaths) > self.policy.max_restarts:
            raise CrashLoop(child, self.policy)
        delay = self.policy.backoff(len(child.deaths))
        child.restart_at = now + delay
        self.say(
            f"{child.name} (pid {child.pid}) {describe_exit(child.process.returncode)};"
            f" restarting in {delay:g} s"
        )

    def stop_all(self, grace_s: float = GRACE_S) -> None:
        """Stop every child, the last started first, and wait for each group to be gone."""
        for child in reversed(self.children):
            stop_group(child, grace_s)
            self.say(f"stopped {child.name} (exit {child.process.returncode})")
        self.children.clear()


def describe_exit(returncode: int | None) -> str:
    """``exited with 3`` / ``killed by SIGKILL`` for a Popen return code."""
    if returncode is None:
        return "running"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with {returncode}"


def _tail(path: Path, lines: int = 10) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def kill_group(pgid: int, wait_s: float = LEFTOVER_WAIT_S) -> None:
    """SIGKILL every process left in group ``pgid`` and wait (bounded) until none runs."""
    if not _group_alive(pgid):
        return
    _signal_group(pgid, signal.SIGKILL)
    deadline = time.monotonic() + wait_s
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.02)


def stop_group(child: Child, grace_s: float) -> None:
    """SIGTERM the child's process group, wait up to ``grace_s``, then SIGKILL what is left."""
    _signal_group(child.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and (child.process.poll() is None or _group_alive(child.pid)):
        time.sleep(0.05)
    if child.process.poll() is None or _group_alive(child.pid):
        _signal_group(child.pid, signal.SIGKILL)
        child.process.wait()
        while _group_alive(child.pid):  # members killed, not yet reaped by their parents
            time.sleep(0.02)


def _signal_group(pgid: int, signum: int) -> None:
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        pass


def _group_alive(pgid: int) -> bool:
    """Whether any process of group ``pgid`` still exists (zombies do not count).

    ``killpg(pgid, 0)`` also succeeds for zombies, which only their parent can reap;
    /proc tells them apart. Without /proc, fall back to ``killpg``.
    """
    if not os.path.isdir("/proc"):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return False
        return True
    for entry in os.listdir("/proc"):
        if entry.isdigit() and _in_group_and_running(int(entry), pgid):
            return True
    return False


def _in_group_and_running(pid: int, pgid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            # "pid (comm) state ppid pgrp ...": comm may hold spaces, so split after ')'.
            fields = stat.read().rsplit(b")", 1)[1].split()
    except OSError:
        return False
    return fields[0] != b"Z" and int(fields[2]) == pgid
