"""``tabletop up`` as a test runs it: its own data directory and ports, output drained
in a thread, every process of its tree remembered so that none is left behind."""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import psutil

from events.redis_adapter.server import free_port
from support.processes import service_env, start_tabletop, stop_process, wait_until

UP_TIMEOUT_S = 60.0
URL_LINE = re.compile(r"tabletop: up at (http://\S+)")


class Output:
    """Drains a pipe in a thread (children share it: a full pipe would block them)."""

    def __init__(self, pipe: IO[str]) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        self._pipe = pipe
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        for line in self._pipe:
            self.lines.put(line)

    def close(self, timeout: float = 10.0) -> None:
        """Close the pipe once every writer is gone (EOF ends the drain)."""
        self._thread.join(timeout)
        self._pipe.close()

    def wait_for(self, pattern: re.Pattern[str], timeout: float) -> re.Match[str]:
        def probe() -> re.Match[str] | None:
            while not self.lines.empty():
                line = self.lines.get()
                self.seen.append(line)
                found = pattern.search(line)
                if found:
                    return found
            return None

        try:
            return wait_until(probe, timeout, f"a line matching {pattern.pattern}")
        except AssertionError:
            raise AssertionError("".join(self.seen)) from None

    def all_lines(self) -> list[str]:
        """Every line, once the pipe is closed (all writers gone)."""
        self.close()
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return self.seen


@dataclass
class Up:
    """A running ``tabletop up``, its output, URL and data directory, and every process
    of its tree ever seen (checked for leftovers at the end)."""

    process: subprocess.Popen[str]
    output: Output
    data_dir: Path
    url: str = ""
    seen: dict[int, psutil.Process] = field(default_factory=dict)

    def family(self) -> list[psutil.Process]:
        """Every live descendant of ``up`` (remembered in ``seen``)."""
        try:
            found = psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        self.seen.update((p.pid, p) for p in found)
        return found

    def find_child(self, pattern: str) -> psutil.Process | None:
        """The direct child of ``up`` whose command line matches ``pattern``, if any."""
        self.family()
        try:
            children = psutil.Process(self.process.pid).children()
        except psutil.NoSuchProcess:
            return None
        return next((p for p in children if re.search(pattern, command_line(p))), None)

    def child(self, pattern: str) -> psutil.Process:
        found = self.find_child(pattern)
        assert found is not None, f"no child matching {pattern}"
        return found

    def all_lines(self) -> list[str]:
        return self.output.all_lines()

    def leftovers(self) -> list[psutil.Process]:
        self.family()
        return [p for p in self.seen.values() if is_running(p)]


def command_line(process: psutil.Process) -> str:
    """The command line, or "" for a process that is gone or a zombie."""
    try:
        return " ".join(process.cmdline())
    except psutil.Error:
        return ""


def is_running(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


@contextmanager
def start_up(data_dir: Path, *up_args: str, **settings: Any) -> Iterator[Up]:
    """``tabletop up`` with the embedded Redis in ``data_dir``, one API worker, one bot
    worker, at most 3 restarts of a child per minute (and ``up_args``); killed with its
    tree afterwards."""
    env = service_env("", "tt-faults:", "tt-faults-bots", **settings)
    del env["TABLETOP_REDIS_URL"]  # no Redis given: up starts the embedded one
    args = ["up", "--port", str(free_port()), "--redis-port", str(free_port())]
    args += ["--data-dir", str(data_dir), "--workers", "1", "--bot-workers", "1"]
    args += ["--max-restarts", "3", "--restart-window", "60", *up_args]
    process = start_tabletop(args, env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    up = Up(process, Output(process.stdout), data_dir)
    try:
        up.url = up.output.wait_for(URL_LINE, UP_TIMEOUT_S).group(1)
        up.family()
        yield up
    finally:
        if process.poll() is None:
            for child in up.family():
                child.kill()
            stop_process(process, signal.SIGKILL)
        for leftover in up.leftovers():
            leftover.kill()
        up.output.close()


