"""A hung API worker process is replaced by gunicorn's master, on a real server.

The server runs with ``TABLETOP_WORKER_TIMEOUT_S=3`` (30 by default): once both of its
gevent workers have booted (gunicorn times a worker only from its first heartbeat),
one is stopped (SIGSTOP: its loop no longer runs, as if blocked for good).
The master must kill it and start a new one within the timeout and a few seconds of
its own rounds, while the other worker answers; a long poll held meanwhile is not taken
for silence (the workers' heartbeat runs beside their requests).
"""

from __future__ import annotations

import contextlib
import os
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

WORKER_TIMEOUT_S = 3
REPLACED_BOUND_S = 30.0
"""A bound for the test (the timeout, the master's rounds, a fresh interpreter's start),
not a measurement: the time taken is printed."""


def has_beaten(worker: psutil.Process) -> bool:
    """Whether a gunicorn worker has sent its master a heartbeat yet (it has booted): its
    unlinked ``wgunicorn-`` file carries a monotonic-clock date only from its first beat
    on; until then it has the wall-clock date of its creation, which gunicorn's timeout
    never counts -- a worker stopped while it boots is never replaced (gunicorn's limit)."""
    fds = Path(f"/proc/{worker.pid}/fd")
    for fd in fds.iterdir():
        with contextlib.suppress(OSError):
            if "wgunicorn-" in os.readlink(fd):
                return fd.stat().st_mtime < 10**9  # seconds since boot, not since 1970
    return False


def workers(server: LiveServer) -> list[psutil.Process]:
    assert server.process is not None
    return [p for p in psutil.Process(server.process.pid).children() if p.status() != psutil.STATUS_ZOMBIE]


def booted_workers(server: LiveServer) -> list[psutil.Process] | None:
    """The server's two workers once both have booted, else None."""
    found = workers(server)
    return found if len(found) == 2 and all(map(has_beaten, found)) else None


def test_a_stopped_api_worker_is_replaced_and_the_other_answers_meanwhile(redis_target: TestRedis) -> None:
    with own_server(redis_target, worker_timeout_s=WORKER_TIMEOUT_S, long_poll_max_s=2 * WORKER_TIMEOUT_S) as server:
        created = requests.post(f"{server.url}/v1/games", json={"game": "schlitzohr", "players": 2}, timeout=10)
        assert created.status_code == 201, created.text
        game_id = created.json()["game_id"]
        before = wait_until(lambda: booted_workers(server), REPLACED_BOUND_S, "both workers to have booted")
        stopped, survivor = before
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
        answers = []
        while stopped.is_running() and stopped.status() != psutil.STATUS_ZOMBIE:
            answers.append(requests.get(f"{server.url}/healthz", timeout=5).status_code)
            assert time.monotonic() - started < REPLACED_BOUND_S, "the stopped worker was never replaced"
            time.sleep(0.2)
        replaced = wait_until(
            lambda: len(now := workers(server)) == 2 and stopped.pid not in {p.pid for p in now},
            REPLACED_BOUND_S,
            "a new worker in place of the stopped one",
        )
        assert replaced
        print(f"\nstopped worker replaced after {time.monotonic() - started:.1f} s", file=sys.stderr)
        assert answers and set(answers) == {200}  # the other worker answered throughout
        poll.join(30)
        assert polled == [200]
        assert survivor.is_running() and survivor.pid in {p.pid for p in workers(server)}
        assert requests.get(f"{server.url}/readyz", timeout=5).status_code == 200
        assert "WORKER TIMEOUT" in server.log_text()
