"""A hung API worker process is replaced by gunicorn's master, on a real server.

The server runs with ``TABLETOP_WORKER_TIMEOUT_S=6`` (30 by default). A worker is
stopped (SIGSTOP: its loop no longer runs, as if blocked for good) once it serves, or
while it boots; either way the master must kill it and start a new one within the
timeout and a few seconds of its own rounds, while the other worker answers. A long
poll held meanwhile is not taken for silence (the workers' heartbeat runs beside their
requests).
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path

import psutil
import requests
from support.live_server import LiveServer
from support.processes import wait_until
from support.redis import TestRedis
from support.security_servers import own_server

WORKER_TIMEOUT_S = 6
"""Above a boot on a loaded machine (about a second here): the boot counts."""

REPLACED_BOUND_S = 40.0
"""A bound for the test (the timeout, the master's rounds, a fresh interpreter's start),
not a measurement: the time taken is printed."""


def workers(server: LiveServer) -> list[psutil.Process]:
    assert server.process is not None
    return [p for p in psutil.Process(server.process.pid).children() if alive(p)]


def alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def app_loaded(worker: psutil.Process) -> bool:
    """Whether a worker has loaded the app (its ``orjson`` extension is mapped): booted."""
    try:
        return "orjson" in Path(f"/proc/{worker.pid}/maps").read_text()
    except OSError:
        return False


def booted_workers(server: LiveServer) -> list[psutil.Process] | None:
    """The server's two workers once both have loaded the app, else None."""
    found = workers(server)
    return found if len(found) == 2 and all(map(app_loaded, found)) else None


def wait_replaced(server: LiveServer, stopped: psutil.Process, started: float) -> list[int]:
    """Ask ``/healthz`` until the master has replaced ``stopped`` with a booted worker;
    the statuses it answered meanwhile."""
    answers = []
    while alive(stopped) or booted_workers(server) is None:
        answers.append(requests.get(f"{server.url}/healthz", timeout=5).status_code)
        assert time.monotonic() - started < REPLACED_BOUND_S, "the stopped worker was never replaced"
        time.sleep(0.2)
    print(f"\nstopped worker replaced after {time.monotonic() - started:.1f} s", file=sys.stderr)
    return answers


def test_a_stopped_api_worker_is_replaced_and_the_other_answers_meanwhile(redis_target: TestRedis) -> None:
    with own_server(redis_target, worker_timeout_s=WORKER_TIMEOUT_S, long_poll_max_s=2 * WORKER_TIMEOUT_S) as server:
        created = requests.post(f"{server.url}/v1/games", json={"game": "schlitzohr", "players": 2}, timeout=10)
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        stopped, survivor = wait_until(lambda: booted_workers(server), REPLACED_BOUND_S, "both workers to boot")
        stopped.send_signal(signal.SIGSTOP)
        started = time.monotonic()
        # A long poll longer than the timeout, on the worker that keeps running (the
        # stopped one accepts nothing): waiting on a request is not silence.
        polled: list[int] = []
        poll = threading.Thread(
            target=lambda: polled.append(
                requests.get(f"{server.url}/v1/games/{game_id}", params={"wait": 2 * WORKER_TIMEOUT_S}, timeout=30).status_code
            )
        )
        poll.start()
        answers = wait_replaced(server, stopped, started)
        assert answers and set(answers) == {200}  # the other worker answered throughout
        poll.join(30)
        assert polled == [200]
        assert alive(survivor) and survivor.pid in {p.pid for p in workers(server)}
        assert requests.get(f"{server.url}/readyz", timeout=5).status_code == 200
        assert "WORKER TIMEOUT" in server.log_text()


def test_a_worker_stopped_while_it_boots_is_replaced_too(redis_target: TestRedis) -> None:
    # gunicorn times a worker from its first heartbeat, which came after its boot: one
    # stopped (or stuck in an import) while booting was never replaced.
    with own_server(redis_target, worker_timeout_s=WORKER_TIMEOUT_S) as server:
        first = wait_until(lambda: booted_workers(server), REPLACED_BOUND_S, "both workers to boot")
        first[0].kill()  # the master forks a new worker in its place ...
        known = {p.pid for p in first}
        newborn = wait_until(
            lambda: next((p for p in workers(server) if p.pid not in known), None), 10.0, "a new worker", interval=0.005
        )
        newborn.send_signal(signal.SIGSTOP)  # ... and it is stopped before it has booted
        started = time.monotonic()
        assert not app_loaded(newborn), "the new worker booted before it could be stopped"
        answers = wait_replaced(server, newborn, started)
        assert set(answers) == {200}
