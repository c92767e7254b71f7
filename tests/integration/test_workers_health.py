"""``tabletop health``: the container checks answer for real processes, and fail without them."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
import redis
from rq import Queue, Worker
from support.processes import (
    ROOT,
    running,
    service_env,
    stop_process,
    wait_until,
)
from support.redis import TestRedis

from service.bootstrap import build
from service.cli import main
from service.runner.liveness import BEAT_FRESH_S, LIVENESS_FILE_ENV
from service.settings import Settings
from workers import sweeper


@pytest.fixture
def settings(
    redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str, queue_name: str
) -> Settings:
    return Settings(redis_url=redis_target.url, key_prefix=key_prefix, queue_name=queue_name)


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch, settings: Settings) -> dict[str, str]:
    """The test's settings in this process's environment (``tabletop health`` reads it)."""
    env = service_env(settings.redis_url, settings.key_prefix, settings.queue_name)
    for name, value in env.items():
        if name.startswith("TABLETOP_"):
            monkeypatch.setenv(name, value)
    return env


def health(part: str) -> int:
    return main(["health", part])


def test_redis_is_healthy_and_an_unreachable_one_is_not(
    environment: dict[str, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert health("redis") == 0
    monkeypatch.setenv("TABLETOP_REDIS_URL", "redis://127.0.0.1:1/0")
    assert health("redis") == 1
    assert "unhealthy" in capsys.readouterr().err


def test_a_worker_of_this_host_is_healthy_once_it_runs(
    environment: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert health("worker") == 1
    with running(["worker"], environment):
        wait_until(lambda: health("worker") == 0, 30, "the worker to register")
    capsys.readouterr()


def test_the_sweeper_is_healthy_while_it_sweeps(
    environment: dict[str, str], settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert health("sweeper") == 1
    svc = build(settings)
    stop = threading.Event()
    loop = threading.Thread(target=sweeper.run, args=(svc, stop))
    loop.start()
    try:
        wait_until(lambda: health("sweeper") == 0, 10, "the sweeper's heartbeat")
    finally:
        stop.set()
        loop.join()
        svc.redis.close()
    capsys.readouterr()


def test_a_worker_without_heartbeat_or_redis_is_reported_clearly(
    environment: dict[str, str],
    settings: Settings,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Registered with RQ (as a worker that lost Redis or died stays for minutes) but
    # silent: no heartbeat for 5 s.
    silent = Worker([Queue(settings.queue_name, connection=redis_client)], name="silent-one")
    silent.register_birth()
    try:
        assert health("worker") == 1
        err = capsys.readouterr().err
        assert "heartbeat stopped for silent-one" in err and "disconnected from Redis" in err
    finally:
        silent.register_death()
    monkeypatch.setenv("TABLETOP_REDIS_URL", "redis://127.0.0.1:1/0")
    assert health("worker") == 1
    assert "cannot reach Redis" in capsys.readouterr().err


def test_a_projector_is_healthy_while_it_runs_and_not_once_it_is_stopped(
    environment: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # It serves no port: `health redis` said healthy for a stopped (or frozen) projector.
    beat = tmp_path / "projector.alive"
    assert health("beat") == 1  # no file named: it cannot vouch for anything
    monkeypatch.setenv(LIVENESS_FILE_ENV, str(beat))
    assert health("beat") == 1  # nothing beats yet
    env = {**environment, LIVENESS_FILE_ENV: str(beat)}
    projector = subprocess.Popen([sys.executable, "-m", "workers.projector"], env=env, cwd=ROOT, process_group=0)
    try:
        wait_until(lambda: main(["health", "beat", "redis"]) == 0, 20, "the projector's beat")
        projector.send_signal(signal.SIGSTOP)
        wait_until(lambda: health("beat") == 1, 3 * BEAT_FRESH_S, "a stale beat")
        assert main(["health", "beat", "redis"]) == 1  # one part unhealthy: unhealthy
        projector.send_signal(signal.SIGCONT)
        wait_until(lambda: health("beat") == 0, 10, "the beat again")
    finally:
        projector.send_signal(signal.SIGCONT)
        stop_process(projector)
    lines = capsys.readouterr()
    assert "beat: unhealthy (last beat" in lines.err and "redis: ok" in lines.out
