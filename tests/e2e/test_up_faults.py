"""Fault tests of ``tabletop up``: kill -9 its children one after the other, on real processes.

One ``up`` (embedded Redis, one API worker, one bot worker, projector, sweeper) serves
the whole scenario: for each of the bot worker, Redis, the gunicorn master and the
projector, the test starts a bot game (its turns in flight), kills the process with
SIGKILL and checks
that ``up`` restarts it (a new process under the same name), that what was left of the
dead child's process group (gunicorn's worker) is gone, that the API
answers again within :data:`RECOVERY_BOUND_S` (the measured time is printed), and that
nothing acknowledged before the kill is lost (every game and every event seen before
is still there, unchanged). The bot games finish (see the test for the one exception);
Ctrl-C leaves no process behind.

A second ``up`` checks that the operator's commands find its Redis through the data
directory (with no Redis URL in their environment), and then a crash loop: Redis's AOF
made unreadable, Redis killed -- every restart dies at once, ``up`` reports the crash
loop with Redis's own log line and exits 1, leaving no process behind.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import psutil
import pytest
import requests
from support.processes import ROOT, wait_until
from support.up import UP_TIMEOUT_S, Up, is_running, start_up

RECOVERY_BOUND_S = 30.0
"""The issue asks for bounds: a killed child is back and the API answers within this."""
GAME_TIMEOUT_S = 90.0

FAST_SWEEPS = {
    "bot_stall_s": 2,
    "sweep_interval_s": 0.5,
    "create_limit_per_minute": 0,
    "bot_think_ms": 100,
}
"""A bot turn lost with a killed process is re-enqueued after 2 s, not 30; bots pause
0.1 s per turn, so the game created just before each kill is still being played."""

BOT_RESUME_BOUND_S = 12.0
"""The issue's bound: bot turns resume within 10 s of Redis answering again, whatever
state RQ had their jobs in; 2 s of margin for a loaded machine."""


@pytest.fixture
def up(tmp_path: Path) -> Iterator[Up]:
    with start_up(tmp_path / "data", **FAST_SWEEPS) as started:
        yield started


# --- what the API acknowledged ----------------------------------------------------


def _events(url: str, game_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        page = requests.get(
            f"{url}/v1/games/{game_id}/events", params={"after": after, "limit": 500}, timeout=10
        ).json()
        events += page["events"]
        after = page["next_after"]
    return events


def create_bot_game(url: str) -> str:
    body = {
        "game": "schlitzohr",
        "players": 2,
        "bots": {"0": "random", "1": "greedy"},
        "options": {"turn_cap": 10},
    }
    created = requests.post(f"{url}/v1/games", json=body, timeout=10)
    assert created.status_code == 201, created.text
    return str(created.json()["game_id"])


def create_human_game(url: str) -> str:
    """A game with both seats taken by people: its acknowledged commands are the joins."""
    created = requests.post(f"{url}/v1/games", json={"game": "abluxxen", "players": 2}, timeout=10)
    assert created.status_code == 201, created.text
    game_id = str(created.json()["game_id"])
    for i in range(2):
        seat = requests.post(f"{url}/v1/games/{game_id}/seats", json={"name": f"p{i}"}, timeout=10)
        assert seat.status_code == 201, seat.text
    return game_id


def snapshot(url: str, games: list[str]) -> dict[str, list[str]]:
    """The hash chain of every game now (a spectator's view of an event changes when
    the game ends and reveals it; its hash does not)."""
    return {game_id: [e["hash"] for e in _events(url, game_id)] for game_id in games}


def assert_nothing_lost(url: str, before: dict[str, list[str]]) -> None:
    """Each game still exists and its chain starts with exactly the events seen before."""
    after = snapshot(url, list(before))
    for game_id, chain in before.items():
        assert after[game_id][: len(chain)] == chain, f"game {game_id} lost acknowledged events"


def _answers(url: str) -> bool:
    try:
        return requests.get(f"{url}/readyz", timeout=2).status_code == 200
    except requests.RequestException:
        return False


def _finished(url: str, game_id: str) -> bool:
    try:
        view = requests.get(f"{url}/v1/games/{game_id}", timeout=5).json()
    except (requests.RequestException, ValueError):
        return False
    return bool(view.get("status") == "finished" and view.get("seed"))


def _version(url: str, game_id: str) -> int:
    try:
        return int(requests.get(f"{url}/v1/games/{game_id}", timeout=5).json()["version"])
    except (requests.RequestException, ValueError, KeyError):
        return -1


def _pgid(process: psutil.Process) -> int | None:
    try:
        return os.getpgid(process.pid)
    except ProcessLookupError:
        return None


# --- the scenario -----------------------------------------------------------------


def replaced_and_answering(
    up: Up, name: str, pattern: str, victim: psutil.Process, started: float, bound_s: float
) -> float:
    """Wait (``bound_s`` for each) until ``up`` runs a new child matching ``pattern`` in
    place of ``victim`` and the API answers; the seconds since ``started``."""
    wait_until(
        lambda: (up.find_child(pattern) or victim).pid != victim.pid, bound_s, f"up to replace {name}"
    )
    wait_until(lambda: _answers(up.url), bound_s, f"the API to answer after {name}")
    return time.monotonic() - started


def kill_and_recover(up: Up, name: str, pattern: str, group_size: int, games: list[str]) -> float:
    """kill -9 the child ``name`` (whose process group has ``group_size`` processes) right
    after creating a bot game (appended to ``games``: its turns are in flight); the
    seconds until the child is back and the API answers."""
    victim = up.child(pattern)

    def whole_group() -> list[psutil.Process] | None:
        group = [p for p in up.family() if _pgid(p) == victim.pid]
        return group if len(group) >= group_size else None

    group = wait_until(whole_group, UP_TIMEOUT_S, f"{name}'s group to have {group_size} processes")
    games.append(create_bot_game(up.url))
    before = snapshot(up.url, games)
    started = time.monotonic()
    victim.send_signal(signal.SIGKILL)
    recovery = replaced_and_answering(up, name, pattern, victim, started, bound_s=RECOVERY_BOUND_S)
    print(f"\nrecovery after kill -9 of {name}: {recovery:.2f} s", file=sys.stderr)
    assert recovery < RECOVERY_BOUND_S
    # The game whose turns were in flight moves on again: within the bound after
    # Redis came back; after the other kills at its own pace (a turn "started" by a
    # killed worker waits for that worker's heartbeat to expire, then for the sweeper),
    # and every game must finish in the end (the caller checks).
    answered = time.monotonic()
    at_recovery = _version(up.url, games[-1])
    assert at_recovery >= 0, "the game in flight could not be read once the API answered"
    wait_until(
        lambda: _finished(up.url, games[-1]) or _version(up.url, games[-1]) > at_recovery,
        BOT_RESUME_BOUND_S if name == "redis" else GAME_TIMEOUT_S,
        f"the bot game in flight to move on after {name}",
    )
    print(f"bot turns resumed {time.monotonic() - answered:.2f} s after {name}", file=sys.stderr)
    # Nothing of the dead child's group survives it (gunicorn's worker).
    wait_until(
        lambda: not any(is_running(p) for p in group), 10.0, f"the rest of {name}'s group to go"
    )
    assert_nothing_lost(up.url, before)
    assert up.process.poll() is None
    return recovery


def test_up_restarts_each_killed_child_and_loses_nothing(up: Up) -> None:
    games = [create_human_game(up.url)]
    recoveries = {
        name: kill_and_recover(up, name, pattern, group_size, games)
        for name, pattern, group_size in (
            # The worker's scheduler is a thread of its own (workers/rq_worker.py): its
            # group is one process, and nothing of it may outlive a kill.
            ("bot worker", r"service\.cli worker", 1),
            ("redis", r"redis-server", 1),
            ("gunicorn master", r"service\.runner\.gunicorn", 2),  # with its worker
            ("projector", r"workers\.projector", 1),
        )
    }
    rounded = {name: round(seconds, 2) for name, seconds in recoveries.items()}
    print(f"\nrecovery times (s): {json.dumps(rounded)}", file=sys.stderr)
    # Every bot game finishes, the one in flight when Redis died included (a turn cut
    # off by the outage is retried: workers/rq_worker.py, the sweeper's job states);
    # and one more game after all the kills plays to its end.
    games.append(create_bot_game(up.url))
    for game_id in games[1:]:
        wait_until(
            partial(_finished, up.url, game_id), GAME_TIMEOUT_S, f"bot game {game_id} to finish"
        )

    up.process.send_signal(signal.SIGINT)  # Ctrl-C
    assert up.process.wait(UP_TIMEOUT_S) == 0
    assert up.leftovers() == []
    restarts = [line for line in up.all_lines() if "restarted" in line]
    assert len(restarts) >= 4, restarts


HANG_AFTER_S = 3.0
"""The hang threshold of the hang test's ``up`` (20 s by default)."""


def stop_and_recover(up: Up, name: str, pattern: str, whole_group: bool, games: list[str]) -> float:
    """SIGSTOP the child ``name`` (with its whole process group if ``whole_group``: the
    gunicorn master keeps serving through its workers otherwise) right after creating a
    bot game; the seconds until ``up`` has replaced it and the API answers."""
    victim = up.child(pattern)
    games.append(create_bot_game(up.url))
    before = snapshot(up.url, games)
    started = time.monotonic()
    if whole_group:
        os.killpg(victim.pid, signal.SIGSTOP)
    else:
        victim.send_signal(signal.SIGSTOP)
    recovery = replaced_and_answering(up, name, pattern, victim, started, bound_s=RECOVERY_BOUND_S)
    print(f"\nrecovery after SIGSTOP of {name}: {recovery:.2f} s", file=sys.stderr)
    assert recovery < RECOVERY_BOUND_S + HANG_AFTER_S
    wait_until(lambda: not is_running(victim), 10.0, f"the stopped {name} to be gone")
    up.output.wait_for(re.compile(rf"tabletop: {name} \(pid {victim.pid}\) has not shown it works"), 5.0)
    assert_nothing_lost(up.url, before)
    return recovery


def test_up_restarts_each_hung_child_and_only_that_one(tmp_path: Path) -> None:
    # A stopped process never exits: without the watchdog, up waited on it for ever.
    with start_up(tmp_path / "data", "--hang-after", str(HANG_AFTER_S), **FAST_SWEEPS) as up:
        games = [create_human_game(up.url)]
        hung = (
            ("bot worker 1", r"service\.cli worker", False),
            ("projector", r"workers\.projector", False),
            ("sweeper", r"service\.cli sweeper", False),
            # While Redis hangs, the others wait on it: none of them may be taken for hung.
            ("redis", r"redis-server", False),
            ("api", r"service\.runner\.gunicorn", True),
        )
        recoveries = {name: round(stop_and_recover(up, name, pattern, group, games), 2) for name, pattern, group in hung}
        print(f"\nrecovery times after SIGSTOP (s): {json.dumps(recoveries)}", file=sys.stderr)
        for game_id in games[1:]:  # every bot game in flight at a stop plays to its end
            wait_until(partial(_finished, up.url, game_id), GAME_TIMEOUT_S, f"bot game {game_id} to finish")
        up.process.send_signal(signal.SIGINT)
        assert up.process.wait(UP_TIMEOUT_S) == 0
        assert up.leftovers() == []
        condemned = [line for line in up.all_lines() if "has not shown it works" in line]
        # On a failure, up's whole account says which child was condemned when (one local
        # run under load, 2026-12-07, condemned the sweeper while bot worker 1 was stopped).
        assert [line.split(" (pid")[0].removeprefix("tabletop: ") for line in condemned] == [
            n for n, _, _ in hung
        ], "\n".join(line for line in up.all_lines() if line.startswith("tabletop: "))


def test_operator_commands_find_the_service_and_a_crash_loop_stops_up(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with start_up(data_dir) as up:
        record = json.loads((data_dir / "service.json").read_text())
        assert record["api_url"] == up.url and record["redis_url"].startswith("redis://127.0.0.1:")
        token_file = data_dir / "admin-token"
        assert (token_file.stat().st_mode & 0o777) == 0o600
        assert any(str(token_file) in line for line in up.output.seen)
        game_id = create_human_game(up.url)

        # No Redis URL in the environment: the commands must take up's from the data dir
        # (the machine may have another Redis on 6379, where this game does not exist).
        env = {k: v for k, v in os.environ.items() if k not in ("TABLETOP_REDIS_URL", "REDIS_URL")}
        env["TABLETOP_KEY_PREFIX"] = "tt-faults:"
        command = [sys.executable, "-m", "service.cli"]
        where = ["--data-dir", str(data_dir)]
        exported = subprocess.run(
            [*command, "export", game_id, "--admin", *where], env=env, cwd=ROOT,
            capture_output=True, text=True, timeout=60,
        )
        assert exported.returncode == 0, exported.stderr
        assert len(exported.stdout.splitlines()) >= 3  # created, two joins
        health = subprocess.run(
            [*command, "health", "redis", *where], env=env, cwd=ROOT,
            capture_output=True, text=True, timeout=60,
        )
        assert health.returncode == 0, health.stderr
        api = subprocess.run(
            [*command, "health", "api", *where], env=env, cwd=ROOT,
            capture_output=True, text=True, timeout=60,
        )
        assert api.returncode == 0, api.stderr

        # Crash loop: an unreadable AOF makes every restart of Redis die at once.
        redis_server = up.child(r"redis-server")
        for aof in (data_dir / "redis").rglob("*.aof*"):
            aof.write_bytes(b"this is not an append only file\n")
        redis_server.send_signal(signal.SIGKILL)
        assert up.process.wait(UP_TIMEOUT_S) == 1
        lines = up.all_lines()
        assert any("crash loop: redis died" in line for line in lines), "".join(lines)
        assert up.leftovers() == []
        # up is gone, its record stays: a command now fails on *that* Redis, saying so.
        late = subprocess.run(
            [*command, "export", game_id, *where], env=env, cwd=ROOT,
            capture_output=True, text=True, timeout=60,
        )
        assert late.returncode == 2 and "recorded by tabletop up" in late.stderr, late.stderr
