"""``tabletop up``: the whole service in one command.

Starts, in this order: Redis (embedded, when neither ``REDIS_URL`` nor
``TABLETOP_REDIS_URL`` names one), the bot workers, the projector, the sweeper and
the API under gunicorn; waits until ``/healthz`` answers, then prints the URL. On
Ctrl-C (SIGINT) or SIGTERM it stops them in reverse order -- the API first, so no
new command arrives while the workers finish theirs; Redis last -- and waits for
each. Exit status: 0 after a requested stop, 1 if a child died on its own (the
others are then stopped too), 2 if the start failed.

The embedded Redis keeps its data in ``<data-dir>/redis`` with AOF on and
``appendfsync everysec``: a crash of the machine may lose the last second of
appends; a crash of a process loses nothing (see docs/operations.md).
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import sys
import threading
import time
import urllib.request
from pathlib import Path
from types import FrameType
from typing import Any

from service.runner.redis import start_embedded_redis
from service.runner.supervisor import Supervisor

HEALTH_TIMEOUT_S = 60.0
"""How long the API may take to answer ``/healthz`` after its start."""


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "up", help="start Redis (if needed), the API, the bot workers, projector and sweeper"
    )
    p.add_argument("--host", default="127.0.0.1", help="address the API listens on")
    p.add_argument("--port", type=int, default=8000, help="port of the API")
    p.add_argument("--workers", type=int, default=2, help="API worker processes")
    p.add_argument("--bot-workers", type=int, default=2, help="RQ worker processes for bot turns")
    p.add_argument(
        "--data-dir", default=".tabletop", help="where the embedded Redis keeps its data"
    )
    p.add_argument(
        "--redis-port", type=int, default=0, help="embedded Redis port (0: first free from 6380)"
    )
    p.set_defaults(run=run)


def child_command(*args: str) -> list[str]:
    """A ``tabletop`` sub-command run by this interpreter (no reliance on PATH)."""
    return [sys.executable, "-m", "service.cli", *args]


def run(args: argparse.Namespace) -> int:
    stop = threading.Event()
    _on_signals(stop)
    env = dict(os.environ)
    env.setdefault("TABLETOP_DATA_DIR", str(Path(args.data_dir).absolute()))  # the archive's home
    redis_server = None
    if not (env.get("REDIS_URL") or env.get("TABLETOP_REDIS_URL")):
        try:
            redis_server = start_embedded_redis(Path(args.data_dir), args.redis_port)
        except (OSError, RuntimeError) as exc:
            print(f"tabletop: could not start Redis: {exc}", file=sys.stderr, flush=True)
            return 2
        env["TABLETOP_REDIS_URL"] = redis_server.url
        say(f"embedded Redis at {redis_server.url} (data in {redis_server.directory})")
    if not env.get("TABLETOP_ADMIN_TOKEN"):
        env["TABLETOP_ADMIN_TOKEN"] = secrets.token_urlsafe(24)
        say(f"admin token (shown once): {env['TABLETOP_ADMIN_TOKEN']}")
    supervisor = Supervisor(env, say=say)
    try:
        return _run_children(supervisor, args, stop)
    finally:
        supervisor.stop_all()
        if redis_server is not None:
            redis_server.stop()
            say("stopped Redis")


def say(line: str) -> None:
    """A progress line of ``up`` (flushed at once: children write to the same terminal)."""
    print(f"tabletop: {line}", flush=True)


def _run_children(supervisor: Supervisor, args: argparse.Namespace, stop: threading.Event) -> int:
    for i in range(args.bot_workers):
        supervisor.start(f"bot worker {i + 1}", child_command("worker", "--log-level", "WARNING"))
    supervisor.start("projector", [sys.executable, "-m", "workers.projector"])
    supervisor.start("sweeper", child_command("sweeper", "--log-level", "WARNING"))
    url = f"http://{args.host}:{args.port}"
    bind = f"{args.host}:{args.port}"
    api = supervisor.start(
        "api", child_command("serve", "--bind", bind, "--workers", str(args.workers))
    )
    if not _wait_healthy(url, api.process, stop):
        if stop.is_set():
            return 0
        print("tabletop: the API did not come up", file=sys.stderr, flush=True)
        return 2
    say(f"up at {url}  (Ctrl-C stops everything)")
    while not stop.wait(0.2):
        dead = supervisor.exited()
        if dead is not None:
            print(
                f"tabletop: {dead.name} exited with {dead.process.returncode}; stopping",
                file=sys.stderr,
                flush=True,
            )
            return 1
    say("stopping")
    return 0


def _wait_healthy(url: str, process: Any, stop: threading.Event) -> bool:
    """Poll ``url/healthz`` until it answers 200; False if the API died, or on timeout or stop."""
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    while time.monotonic() < deadline and not stop.is_set() and process.poll() is None:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
                if response.status == 200:
                    return True
        except OSError:
            pass
        stop.wait(0.1)
    return False


def _on_signals(stop: threading.Event) -> None:
    """SIGINT and SIGTERM ask for a stop; the main loop does the stopping."""

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
