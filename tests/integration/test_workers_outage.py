"""Fault tests for the bot workers on real processes: Redis killed with jobs in flight, a
worker killed mid-job (issue 12).

Each test runs its own durable ``redis-server`` (AOF, fsync always) on a free port,
real ``tabletop worker`` and ``tabletop sweeper`` processes with the default sweep and
stall settings, and all-bot games whose bots think for a moment
(``TABLETOP_BOT_THINK_MS``) so that kills land mid-job. The recovery bound is the
issue's: bot turns resume within 10 s of Redis answering again (of a worker's death).
The measured times are printed (``pytest -s``).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from rq import Queue, Worker
from rq.registry import StartedJobRegistry
from support.durable import durable_server
from support.processes import service_env, start_tabletop, stop_process, unique_queue, wait_until
from support.redis import unique_prefix

from events.redis_adapter.keys import GameKeys
from events.redis_adapter.server import RedisServer
from service.bootstrap import Services, build
from service.cli import main
from service.settings import Settings

SHORT = {"turn_cap": 10}
"""Schlitzohr's smallest turn cap: games short enough for a test."""

BOUND_S = 10.0
"""The issue's recovery bound."""
MARGIN_S = 2.0
"""Slack for a loaded test machine (process start-up, two cores shared)."""

GAME_TIMEOUT_S = 120.0


@pytest.fixture
def durable(tmp_path: Path) -> Iterator[RedisServer]:
    server = durable_server(tmp_path / "redis")
    yield server
    server.close()


@pytest.fixture
def settings(durable: RedisServer) -> Settings:
    return Settings(redis_url=durable.url, key_prefix=unique_prefix(), queue_name=unique_queue())


@pytest.fixture
def svc(settings: Settings) -> Iterator[Services]:
    services = build(settings)
    yield services
    services.redis.close()


@pytest.fixture
def env(settings: Settings) -> dict[str, str]:
    return service_env(settings.redis_url, settings.key_prefix, settings.queue_name)


class Processes:
    """The test's ``tabletop`` processes; all stopped (and checked gone) at teardown."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.started: list[subprocess.Popen[bytes]] = []
        self.family: list[psutil.Process] = []

    def start(self, args: list[str], env: dict[str, str], name: str) -> subprocess.Popen[bytes]:
        out = (self.logs / f"{name}.log").open("ab")
        process = start_tabletop(args, env, stdout=out, stderr=out)
        out.close()
        self.started.append(process)
        return process

    def remember_family(self) -> None:
        """Note every descendant of our processes now (a scheduler child, if any)."""
        for process in self.started:
            try:
                self.family += psutil.Process(process.pid).children(recursive=True)
            except psutil.NoSuchProcess:
                pass

    def left_behind(self) -> list[psutil.Process]:
        return [p for p in self.family if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]

    def stop_all(self) -> None:
        for process in self.started:
            stop_process(process)


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[Processes]:
    procs = Processes(tmp_path)
    try:
        yield procs
    finally:
        procs.stop_all()
        left = procs.left_behind()
        for orphan in left:
            orphan.kill()
        assert not left, f"processes outlived their parent: {left}"


def new_games(svc: Services, count: int) -> list[str]:
    return [
        svc.app.create_game("schlitzohr", SHORT, ["random", "greedy"])["game_id"]
        for _ in range(count)
    ]


def view(svc: Services, game_id: str) -> dict[str, Any]:
    return svc.app.queries.view(game_id, None)


def revealed(svc: Services, game_id: str) -> bool:
    """Whether the game has ended and its seed is out: the worker whose move ended it
    appends ``SeedRevealed`` in an append of its own, right after ``GameEnded``."""
    final = view(svc, game_id)
    return bool(final["status"] == "finished" and final["seed"] is not None)


def assert_played_once(svc: Services, game_id: str) -> None:
    """Finished, seed revealed, chain verified, and every bot move written by exactly one
    run of its turn: the idempotency records ``bot:<seat>:<version>`` (first and last
    version of the batch each wrote) cover every bot event once, each batch starting
    right after the version its turn was due at."""
    history = svc.app.queries.history(game_id, 0, 0, 1000)["events"]
    assert history[-1]["type"] == "SeedRevealed"
    assert svc.store.verify(game_id) == len(history)
    moves = {e["version"]: e for e in history if e["command"] is not None}
    assert moves and all(e["actor"]["kind"] == "bot" for e in moves.values())
    records = svc.redis.hgetall(GameKeys.of(svc.settings.key_prefix, game_id).idempotency)
    covered: list[int] = []
    for field, raw in records.items():
        _, seat, due = field.decode().split(":")
        record = json.loads(raw)
        assert record["first"] == int(due) + 1
        batch = range(record["first"], record["last"] + 1)
        assert all(moves[v]["actor"]["seat"] == int(seat) for v in batch)
        covered += batch
    assert sorted(covered) == sorted(moves)


def in_flight(svc: Services) -> list[str]:
    queue = Queue(svc.settings.queue_name, connection=svc.redis)
    return StartedJobRegistry(queue=queue).get_job_ids()


@pytest.fixture
def health(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Callable[[], int]:
    """``tabletop health worker`` (in this process: it reads the test's settings)."""
    for name, value in env.items():
        if name.startswith("TABLETOP_"):
            monkeypatch.setenv(name, value)
    return lambda: main(["health", "worker"])


def test_redis_killed_with_bot_jobs_in_flight_costs_a_retry_not_a_worker(
    durable: RedisServer,
    svc: Services,
    env: dict[str, str],
    processes: Processes,
    health: Callable[[], int],
) -> None:
    thinking = {**env, "TABLETOP_BOT_THINK_MS": "150"}
    workers = [processes.start(["worker"], thinking, f"worker{i}") for i in range(2)]
    processes.start(["sweeper"], env, "sweeper")
    games = new_games(svc, 4)
    wait_until(lambda: len(in_flight(svc)) >= 2, 30, "both workers to run a bot turn")
    processes.remember_family()

    durable.kill()  # kill -9, jobs in flight
    time.sleep(1.0)  # a short outage: workers and sweeper hit a dead Redis
    restarted = RedisServer(
        port=durable.port, directory=durable.directory, config=durable.config
    ).start()
    answering = time.monotonic()
    try:
        before = {g: view(svc, g) for g in games}
        resumed: dict[str, float] = {}

        def all_resumed() -> bool:
            for game_id in games:
                if game_id not in resumed:
                    now = view(svc, game_id)
                    if now["version"] > before[game_id]["version"] or now["status"] == "finished":
                        resumed[game_id] = time.monotonic() - answering
            return len(resumed) == len(games)

        wait_until(all_resumed, BOUND_S + MARGIN_S, "every bot game to resume", interval=0.1)
        print(f"\nresumed after Redis answered again (s): "
              f"{sorted(round(t, 2) for t in resumed.values())}")
        assert all(w.poll() is None for w in workers), "a worker died of the outage"
        wait_until(
            lambda: all(revealed(svc, g) for g in games),
            GAME_TIMEOUT_S,
            "every game to finish",
        )
        for game_id in games:
            assert_played_once(svc, game_id)
        assert all(w.poll() is None for w in workers)
        assert health() == 0
        assert [stop_process(w, timeout=10) for w in workers] == [0, 0]  # SIGTERM still stops
    finally:
        processes.stop_all()
        restarted.kill()
    assert not processes.left_behind()


def test_a_worker_killed_mid_job_is_replaced_and_health_notices(
    svc: Services, env: dict[str, str], processes: Processes, health: Callable[[], int]
) -> None:
    slow = processes.start(["worker"], {**env, "TABLETOP_BOT_THINK_MS": "60000"}, "slow")
    wait_until(lambda: health() == 0 or _registered(svc), 30, "the slow worker")
    (game_id,) = new_games(svc, 1)
    version = view(svc, game_id)["version"]
    wait_until(lambda: in_flight(svc), 30, "the slow worker to start the turn")
    backup = processes.start(["worker"], env, "backup")
    processes.start(["sweeper"], env, "sweeper")
    wait_until(lambda: len(_registered(svc)) == 2, 30, "both workers to register")
    processes.remember_family()

    os.kill(slow.pid, signal.SIGKILL)  # the worker only, not its process group
    killed = time.monotonic()
    slow.wait(10)
    wait_until(
        lambda: view(svc, game_id)["version"] > version,
        BOUND_S + MARGIN_S,
        "the backup worker to play the abandoned turn",
        interval=0.1,
    )
    print(f"\nturn resumed {time.monotonic() - killed:.2f} s after its worker's death")
    assert not processes.left_behind(), "the killed worker left a child behind"

    wait_until(lambda: revealed(svc, game_id), GAME_TIMEOUT_S, "the game")
    assert_played_once(svc, game_id)

    os.kill(backup.pid, signal.SIGKILL)  # now no worker is left on this host
    killed = time.monotonic()
    backup.wait(10)
    wait_until(lambda: health() != 0, BOUND_S + MARGIN_S, "health to see the death")
    print(f"health worker failed {time.monotonic() - killed:.2f} s after the last worker's death")


def _registered(svc: Services) -> list[Worker]:
    return Worker.all(queue=Queue(svc.settings.queue_name, connection=svc.redis))
