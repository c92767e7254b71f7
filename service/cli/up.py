"""``tabletop up``: the whole service in one command, kept running.

Starts, in this order: Redis (embedded, when neither ``REDIS_URL`` nor
``TABLETOP_REDIS_URL`` names one), the bot workers, the projector, the sweeper and
the API under gunicorn; waits until ``/healthz`` answers, then prints the URL (open it
in a browser to play: the API serves its web client at ``/``).

Supervision (``service.runner.supervisor``): a child that dies -- any of them, the
embedded Redis too (same port, same data directory: it replays its AOF) -- is
restarted with exponential backoff and a log line; no child's death stops another.
More than ``--max-restarts`` deaths of one child within ``--restart-window`` seconds
is a crash loop: ``up`` reports it (with the tail of Redis's log if Redis is the one)
and stops everything. On Ctrl-C (SIGINT) or SIGTERM it stops the children in reverse
order -- the API first, so no new command arrives while the workers finish theirs;
Redis last -- and waits for each. Exit status: 0 after a requested stop, 1 after a
crash loop, 2 if the start failed.

The data directory (``--data-dir``, mode 0700) holds Redis's files, the admin token
(``admin-token``, mode 0600, reused by the next ``up``) and ``service.json``: where
Redis and the API are, for the operator's commands (``service.runner.datadir``).

The embedded Redis keeps its data in ``<data-dir>/redis`` with AOF on and
``appendfsync everysec``: a crash of the machine may lose the last second of
appends; a crash of a process loses nothing (see docs/operations.md).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
import urllib.request
from pathlib import Path
from types import FrameType
from typing import Any

from service.runner.datadir import DEFAULT_DATA_DIR, TOKEN_ENV, admin_token, prepare, write_record
from service.runner.liveness import LIVENESS_FILE_ENV, Watchdog, file_probe, redis_probe
from service.runner.redis import embedded_redis, wait_for_redis
from service.runner.supervisor import CrashLoop, RestartPolicy, Supervisor

HEALTH_TIMEOUT_S = 60.0
"""How long the API may take to answer ``/healthz`` after its start."""

MIN_HANG_AFTER_S = 2.0
"""The shortest ``--hang-after``: two probe rounds (a shorter one would condemn a child for
one late beat, and restart children in a loop)."""

REDIS_START_S = 300.0
"""How long the embedded Redis may take to answer at the start (replaying a large AOF
takes a while; a server that dies meanwhile is reported at once)."""


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "up", help="start Redis (if needed), the API, the bot workers, projector and sweeper"
    )
    p.add_argument("--host", default="127.0.0.1", help="address the API listens on")
    p.add_argument("--port", type=int, default=8000, help="port of the API")
    p.add_argument("--workers", type=int, default=2, help="API worker processes")
    p.add_argument("--bot-workers", type=int, default=2, help="RQ worker processes for bot turns")
    p.add_argument(
        "--data-dir",
        default=DEFAULT_DATA_DIR,
        help="where the embedded Redis keeps its data, and up its admin-token and service.json",
    )
    p.add_argument(
        "--redis-port", type=int, default=0, help="embedded Redis port (0: first free from 6380)"
    )
    p.add_argument(
        "--max-restarts",
        type=int,
        default=RestartPolicy().max_restarts,
        help="restarts of one child within --restart-window before up gives up (crash loop)",
    )
    p.add_argument(
        "--restart-window",
        type=float,
        default=RestartPolicy().window_s,
        help="seconds over which --max-restarts counts",
    )
    p.add_argument(
        "--hang-after",
        type=hang_threshold,
        default=RestartPolicy().hang_after_s,
        metavar="S",
        help="a child whose liveness probe has failed for S seconds (Redis: PING; the"
        " others, the API's gunicorn master included: their liveness file) is killed"
        " and restarted; 0 = never (only dead children are restarted)",
    )
    p.set_defaults(run=run)


def hang_threshold(text: str) -> float:
    """``--hang-after``: 0 (off) or at least :data:`MIN_HANG_AFTER_S` seconds."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if seconds != 0 and not MIN_HANG_AFTER_S <= seconds < float("inf"):
        raise argparse.ArgumentTypeError(f"0 (off) or at least {MIN_HANG_AFTER_S:g} s, not {text}")
    return seconds


def child_command(*args: str) -> list[str]:
    """A ``tabletop`` sub-command run by this interpreter (no reliance on PATH)."""
    return [sys.executable, "-m", "service.cli", *args]


def run(args: argparse.Namespace) -> int:
    stop = threading.Event()
    _on_signals(stop)
    env = dict(os.environ)
    data_dir = prepare(Path(args.data_dir))
    env.setdefault("TABLETOP_DATA_DIR", str(data_dir.absolute()))  # the archive's home
    policy = RestartPolicy(
        max_restarts=args.max_restarts, window_s=args.restart_window, hang_after_s=args.hang_after
    )
    # The supervisor copies ``env`` at each start: what _run_children adds to it
    # (Redis's URL, the admin token) reaches every child started after that.
    supervisor = Supervisor(env, say=say, policy=policy)
    watchdog = Watchdog(lambda: supervisor.children)
    if policy.hang_after_s > 0:  # 0: only deaths are watched
        watchdog.start()
    try:
        return _run_children(supervisor, env, args, data_dir, stop)
    except CrashLoop as loop:
        print(f"tabletop: {loop.report()}\ntabletop: stopping", file=sys.stderr, flush=True)
        return 1
    finally:
        watchdog.stop()
        supervisor.stop_all()


def say(line: str) -> None:
    """A progress line of ``up`` (flushed at once: children write to the same terminal)."""
    print(f"tabletop: {line}", flush=True)


def _start_redis(supervisor: Supervisor, args: argparse.Namespace, data_dir: Path) -> str | None:
    """Start the embedded Redis as a supervised child; its URL, or None if it did not answer."""
    try:
        server = embedded_redis(data_dir, args.redis_port)
        child = supervisor.start(
            "redis", server.argv(), log_file=server.log_file, probe=redis_probe(server.url)
        )
    except (OSError, RuntimeError) as exc:
        print(f"tabletop: could not start Redis: {exc}", file=sys.stderr, flush=True)
        return None
    if not wait_for_redis(server.url, lambda: child.process.poll() is None, REDIS_START_S):
        tail = "\n".join(_tail_lines(server.log_file))
        message = f"tabletop: could not start Redis on port {server.port}:\n{tail}"
        print(message, file=sys.stderr, flush=True)
        return None
    say(f"embedded Redis at {server.url} (data in {server.directory})")
    return server.url


def _run_children(
    supervisor: Supervisor,
    env: dict[str, str],
    args: argparse.Namespace,
    data_dir: Path,
    stop: threading.Event,
) -> int:
    redis_url = env.get("TABLETOP_REDIS_URL") or env.get("REDIS_URL")
    if not redis_url:
        redis_url = _start_redis(supervisor, args, data_dir)
        if redis_url is None:
            return 2
        env["TABLETOP_REDIS_URL"] = redis_url
    token, token_file = admin_token(data_dir, env)
    env["TABLETOP_ADMIN_TOKEN"] = token
    say(f"admin token in {token_file} (mode 0600)" if token_file else f"admin token: {TOKEN_ENV}")
    url = f"http://{args.host}:{args.port}"
    record = write_record(data_dir, redis_url=redis_url, api_url=url)
    say(f"service recorded in {record} (operator commands find Redis there)")
    beats = liveness_dir(data_dir)
    for i in range(args.bot_workers):
        start_beating_child(
            supervisor, beats, f"bot worker {i + 1}", child_command("worker", "--log-level", "WARNING")
        )
    start_beating_child(supervisor, beats, "projector", [sys.executable, "-m", "workers.projector"])
    start_beating_child(supervisor, beats, "sweeper", child_command("sweeper", "--log-level", "WARNING"))
    bind = f"{args.host}:{args.port}"
    # The gunicorn master beats (gunicorn_config.when_ready); it replaces its own
    # silent workers. Not /healthz: an API slow under a flood is busy, not hung.
    start_beating_child(
        supervisor, beats, "api", child_command("serve", "--bind", bind, "--workers", str(args.workers))
    )
    if not _wait_healthy(url, supervisor, stop):
        if stop.is_set():
            return 0
        print("tabletop: the API did not come up", file=sys.stderr, flush=True)
        return 2
    say(f"up at {url}  (Ctrl-C stops everything)")
    say(f"play in your browser: open {url}/  (the lobby; the API is under {url}/v1, its docs at {url}/docs)")
    while not stop.wait(0.2):
        supervisor.check()  # restarts the dead; CrashLoop ends the run
    say("stopping")
    return 0


def liveness_dir(data_dir: Path) -> Path:
    """``<data-dir>/liveness``: one file per Python child, touched while it runs."""
    directory = data_dir / "liveness"
    directory.mkdir(mode=0o700, exist_ok=True)
    return directory


def start_beating_child(supervisor: Supervisor, beats: Path, name: str, argv: list[str]) -> None:
    """Start a Python child that touches its liveness file (``liveness.start_beating``;
    for the API, its gunicorn master does)."""
    beat_file = beats / (name.replace(" ", "-") + ".alive")
    # Made here, dated 1970: what an earlier run left says nothing of this one, and the
    # child's beats then only change a date -- a full disk cannot stop them (creating
    # the file could fail, and the watchdog would take a healthy child for a hung one).
    beat_file.touch()
    os.utime(beat_file, (0, 0))
    env = {LIVENESS_FILE_ENV: str(beat_file)}
    supervisor.start(name, argv, probe=file_probe(beat_file), env=env)


def _wait_healthy(url: str, supervisor: Supervisor, stop: threading.Event) -> bool:
    """Poll ``url/healthz`` until it answers 200, restarting dead children meanwhile;
    False on timeout or stop (CrashLoop if a child keeps dying)."""
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    while time.monotonic() < deadline and not stop.is_set():
        supervisor.check()
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2) as response:
                if response.status == 200:
                    return True
        except OSError:
            pass
        stop.wait(0.1)
    return False


def _tail_lines(path: Path, lines: int = 20) -> list[str]:
    try:
        return path.read_text(errors="replace").splitlines()[-lines:]
    except OSError:
        return ["(no log)"]


def _on_signals(stop: threading.Event) -> None:
    """SIGINT and SIGTERM ask for a stop; the main loop does the stopping."""

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
