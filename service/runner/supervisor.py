"""Child processes of ``tabletop up``: start them, watch them, stop them in reverse order.

Each child runs in a process group of its own, for two reasons: a Ctrl-C at the
terminal reaches only ``up`` (which then stops the children in order, instead of all of
them at once and Redis possibly first), and stopping a child reaches everything it
started (gunicorn's workers, RQ's scheduler process) with one ``killpg``. On Linux a
child also gets SIGTERM if ``up`` itself dies without cleaning up (``PR_SET_PDEATHSIG``).

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

PR_SET_PDEATHSIG = 1
"""``prctl`` option: the signal a process receives when its parent dies (Linux)."""

GRACE_S = 20.0
"""How long a child may take to stop after SIGTERM before it is killed."""


def _die_with_parent() -> None:
    """``preexec_fn``: SIGTERM this child when ``up`` dies (Linux only, best effort)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def child_popen_options() -> dict[str, Any]:
    """Popen options for a supervised child: own process group, dies with its parent."""
    return {"process_group": 0, "preexec_fn": _die_with_parent}


@dataclass
class Child:
    """One supervised process (its pid is also its process group id)."""

    name: str
    process: subprocess.Popen[bytes]

    @property
    def pid(self) -> int:
        return self.process.pid


@dataclass
class Supervisor:
    """Starts children with one environment; see the module docstring."""

    env: Mapping[str, str]
    say: Callable[[str], None] = print
    children: list[Child] = field(default_factory=list)

    def start(self, name: str, argv: Sequence[str]) -> Child:
        """Start ``argv`` as child ``name`` (stdout and stderr shared with ``up``)."""
        process = subprocess.Popen(
            list(argv), env=dict(self.env), stdin=subprocess.DEVNULL, **child_popen_options()
        )
        child = Child(name, process)
        self.children.append(child)
        return child

    def exited(self) -> Child | None:
        """A child that has exited, if any."""
        return next((c for c in self.children if c.process.poll() is not None), None)

    def stop_all(self, grace_s: float = GRACE_S) -> None:
        """Stop every child, the last started first, and wait for each group to be gone."""
        for child in reversed(self.children):
            stop_group(child, grace_s)
            self.say(f"stopped {child.name} (exit {child.process.returncode})")
        self.children.clear()


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
