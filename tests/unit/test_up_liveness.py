"""The supervisor's watchdog on real processes: a child that stops working is killed and
restarted; one that keeps beating, however long it runs, is left alone."""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import time
from pathlib import Path

import pytest

from service.cli.up import hang_threshold, liveness_dir, start_beating_child
from service.runner.liveness import LIVENESS_FILE_ENV, Watchdog, file_probe, start_beating
from service.runner.supervisor import RestartPolicy, Supervisor

BEATING_CHILD = (
    "import time; from service.runner.liveness import start_beating;"
    " start_beating(); time.sleep(600)"
)
ROOT = Path(__file__).resolve().parents[2]


def supervise(
    tmp_path: Path, lines: list[str], hang_after_s: float = 3.0, start_grace_s: float = 0.0
) -> Supervisor:
    policy = RestartPolicy(
        first_backoff_s=0.01, max_backoff_s=0.01, hang_after_s=hang_after_s, start_grace_s=start_grace_s
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return Supervisor(env, say=lines.append, policy=policy)


def start_quick_child(supervisor: Supervisor, tmp_path: Path, name: str) -> None:
    """A beating child whose file is stale 1.5 s after its last beat (up allows 5)."""
    beat = tmp_path / f"{name}.alive"
    supervisor.start(
        name, [sys.executable, "-c", BEATING_CHILD], probe=file_probe(beat, fresh_s=1.5),
        env={LIVENESS_FILE_ENV: str(beat)},
    )


def start_silent_child(supervisor: Supervisor, tmp_path: Path) -> None:
    """A child that runs but never touches its liveness file (it fails every probe)."""
    supervisor.start(
        "silent", [sys.executable, "-c", "import time; time.sleep(600)"],
        probe=file_probe(tmp_path / "silent.alive"),
    )


def run_for(supervisor: Supervisor, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        supervisor.check()
        time.sleep(0.05)


def test_a_stopped_child_is_killed_and_restarted_and_a_beating_one_is_left_alone(tmp_path: Path) -> None:
    lines: list[str] = []
    supervisor = supervise(tmp_path, lines)
    watchdog = Watchdog(lambda: supervisor.children).start()
    try:
        start_quick_child(supervisor, tmp_path, "frozen")
        start_quick_child(supervisor, tmp_path, "healthy")
        frozen, healthy = supervisor.children
        run_for(supervisor, 2.0)  # both beat: nothing happens
        assert lines == []
        first_pid = frozen.pid
        os.kill(first_pid, signal.SIGSTOP)
        stopped_at = time.monotonic()
        while frozen.pid == first_pid and time.monotonic() - stopped_at < 15:
            run_for(supervisor, 0.1)
        took = time.monotonic() - stopped_at
        assert frozen.pid != first_pid, lines
        # Its beats stopped: fresh for 1.5 s, then hung after 3 s more of failed probes.
        assert 2.0 <= took < 8.0, took
        run_for(supervisor, 4.0)  # the new process beats: it stays
        assert frozen.restarts == 1 and healthy.restarts == 0, lines
        assert healthy.pid == healthy.process.pid and healthy.process.poll() is None
    finally:
        watchdog.stop()
        supervisor.stop_all()
    assert any(re.fullmatch(rf"frozen \(pid {first_pid}\) has not shown it works for \d+ s; killing it", line) for line in lines), lines
    assert f"frozen (pid {first_pid}) killed by SIGKILL; restarting in 0.01 s" in lines
    assert not any("healthy" in line for line in lines[:-2]), lines  # only stop_all's lines


def test_a_child_whose_probe_never_passes_is_hung(tmp_path: Path) -> None:
    lines: list[str] = []
    supervisor = supervise(tmp_path, lines, hang_after_s=1.0)
    watchdog = Watchdog(lambda: supervisor.children).start()
    try:
        # Running, but never touching its file (not started by a beating command).
        start_silent_child(supervisor, tmp_path)
        child = supervisor.children[0]
        run_for(supervisor, 1.5)
        assert child.restarts == 0  # its first failed probe starts the count
        run_for(supervisor, 3.0)
        assert child.restarts >= 1, lines
    finally:
        watchdog.stop()
        supervisor.stop_all()


SLOW_STARTING_CHILD = (
    "import time; time.sleep(2.5); from service.runner.liveness import start_beating;"
    " start_beating(); time.sleep(600)"
)


@pytest.mark.parametrize("grace_s", [0.0, 4.0])
def test_a_child_slow_to_start_is_given_the_start_grace(tmp_path: Path, grace_s: float) -> None:
    # Its first beat comes 2.5 s after its start (imports on a loaded machine), past a
    # 0.5 s hang threshold: killed in a loop without a grace, left alone with one.
    lines: list[str] = []
    supervisor = supervise(tmp_path, lines, hang_after_s=0.5, start_grace_s=grace_s)
    watchdog = Watchdog(lambda: supervisor.children).start()
    try:
        beat = tmp_path / "slow.alive"
        supervisor.start(
            "slow", [sys.executable, "-c", SLOW_STARTING_CHILD], probe=file_probe(beat, fresh_s=1.5),
            env={LIVENESS_FILE_ENV: str(beat)},
        )
        run_for(supervisor, 5.0)
        restarts = supervisor.children[0].restarts
    finally:
        watchdog.stop()
        supervisor.stop_all()
    assert (restarts > 0) == (grace_s == 0.0), lines


def test_time_without_probes_condemns_nobody(tmp_path: Path) -> None:
    # As when up itself was stopped (Ctrl-Z) and resumed: the clock moved, no probe ran.
    lines: list[str] = []
    supervisor = supervise(tmp_path, lines, hang_after_s=0.5)
    try:
        start_silent_child(supervisor, tmp_path)
        run_for(supervisor, 1.5)  # three times the threshold, and no watchdog running
        assert supervisor.children[0].restarts == 0 and lines == []
        Watchdog(lambda: supervisor.children).probe_all()  # a probe fails, just now
        run_for(supervisor, 0.2)
        assert lines == []  # one failed probe right after the start is not yet a hang
    finally:
        supervisor.stop_all()


def test_beating_needs_the_variable_and_touches_the_file(tmp_path: Path) -> None:
    assert start_beating({}) is None
    beat = tmp_path / "x.alive"
    assert start_beating({LIVENESS_FILE_ENV: str(beat)}) is not None
    deadline = time.monotonic() + 5
    while not beat.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert file_probe(beat)()
    assert not file_probe(tmp_path / "missing.alive")()


def test_up_makes_each_liveness_file_old_so_beats_only_change_its_date(tmp_path: Path) -> None:
    # A file of an earlier run must not vouch for a new child; and a beat that only
    # changes a date needs no free space (a full disk must not look like a hang).
    lines: list[str] = []
    supervisor = supervise(tmp_path, lines)
    beats = liveness_dir(tmp_path)
    (beats / "quiet.alive").touch()  # fresh, from "an earlier run"
    try:
        start_beating_child(supervisor, beats, "quiet", [sys.executable, "-c", "import time; time.sleep(600)"])
        beat_file = beats / "quiet.alive"
        assert beat_file.stat().st_mtime == 0
        probe = supervisor.children[0].probe
        assert probe is not None and probe() is False
    finally:
        supervisor.stop_all()


def test_hang_after_zero_watches_deaths_only(tmp_path: Path) -> None:
    lines: list[str] = []
    supervisor = supervise(tmp_path, lines, hang_after_s=0)
    watchdog = Watchdog(lambda: supervisor.children).start()
    try:
        start_silent_child(supervisor, tmp_path)
        run_for(supervisor, 2.5)  # two failed probes or more: with a threshold, killed
        assert supervisor.children[0].restarts == 0 and lines == []
    finally:
        watchdog.stop()
        supervisor.stop_all()


@pytest.mark.parametrize("text", ["0", "2", "20.5"])
def test_hang_after_is_off_or_two_seconds_at_least(text: str) -> None:
    assert hang_threshold(text) == float(text)


@pytest.mark.parametrize("text", ["1", "-1", "nan", "inf", "x", ""])
def test_hang_after_refuses_anything_else(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError):
        hang_threshold(text)
