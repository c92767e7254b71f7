"""The command endpoint against a bare Flask + XADD endpoint, same server, same load.

    .venv/bin/python -m bench.api_bench [--workers N] [--connections 8] [--duration 10]
                                        [--rounds 3] [--install-wrk]

Starts a throwaway Redis (AOF on, ``appendfsync everysec``, like ``tabletop up``) and
two gunicorn servers through the same runner (``tabletop serve``) with the same
worker class and count: the tabletop API, and ``bench.bare_app`` whose one endpoint
parses the JSON body and does one XADD. ``wrk`` loads each with the same threads,
connections and duration (each connection replays its own prepared, always-legal
commands: ``bench/command_scripts.py``), after a warm-up on separate games. Rounds
alternate the two, so load from other processes hits both alike.

Reports per endpoint: requests/s and p50/p99 latency (wrk), and the CPU the server's
processes and Redis spent per request (from the kernel's accounting, so it holds
however busy the machine is); then the ratios against the targets: command
throughput >= 60 % of bare, p99 <= 2x bare.

Exit status 1 if any run had a non-2xx answer, a socket error or ran out of prepared
commands (its figures would flatter us), 0 otherwise: targets are reported, not enforced.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import redis

from bench.command_scripts import Request, write_connection_files, write_static_files
from bench.redis_target import redis_cpu
from bench.wrk import Run, ensure_wrk, run_wrk
from events.redis_adapter.server import RedisServer, free_port
from service.app.application import NoNotifier
from service.bootstrap import build
from service.cli.serve import default_workers
from service.runner.gunicorn import WORKER_CLASSES
from service.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
PREFIX = "bench:"
BARE_APP = "bench.bare_app:create_app"
THROUGHPUT_TARGET, P99_TARGET = 0.60, 2.0


@dataclass(frozen=True, slots=True)
class Measured:
    """One wrk run plus the CPU it cost, in microseconds per request."""

    run: Run
    server_cpu_us: float
    redis_cpu_us: float

    @property
    def cpu_us(self) -> float:
        return self.server_cpu_us + self.redis_cpu_us


@dataclass(frozen=True, slots=True)
class Server:
    """A gunicorn server under load: its URL and its process (the group leader)."""

    url: str
    process: subprocess.Popen[bytes]

    def cpu_seconds(self) -> float:
        """User + system CPU of the master and all its workers so far."""
        return sum(self.cpu_times())

    def cpu_times(self) -> tuple[float, float]:
        """(user, system) CPU seconds of the master and all its workers so far."""
        family = psutil.Process(self.process.pid)
        times = [p.cpu_times() for p in (family, *family.children(recursive=True))]
        return sum(t.user for t in times), sum(t.system for t in times)


@contextmanager
def server(
    env: dict[str, str], args: argparse.Namespace, app: str | None = None, cwd: str | Path = ROOT
) -> Iterator[Server]:
    """``tabletop serve`` (optionally of another app factory, or of the source tree in
    ``cwd``) until the block ends."""
    port = free_port()
    argv = [sys.executable, "-m", "service.cli", "serve", "--bind", f"127.0.0.1:{port}"]
    argv += ["--workers", str(args.workers), "--worker-class", args.worker_class]
    argv += ["--app", app] if app else []
    process = subprocess.Popen(argv, env=env, cwd=cwd, process_group=0, stderr=subprocess.DEVNULL)
    try:
        _wait_for_port(port)
        yield Server(f"http://127.0.0.1:{port}", process)
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(30)


def _wait_for_port(port: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"no server came up on port {port}")


def measured(
    wrk: str, target: Server, client: Any, files: Path, args: argparse.Namespace, cycle: bool
) -> Measured:
    server_before, redis_before = target.cpu_seconds(), redis_cpu(client)
    run = run_wrk(wrk, target.url, files, args.connections, args.duration, cycle=cycle)
    server_cpu = target.cpu_seconds() - server_before
    redis_spent = redis_cpu(client) - redis_before
    return Measured(run, 1e6 * server_cpu / run.requests, 1e6 * redis_spent / run.requests)


def prepare(redis_url: str, work: Path, args: argparse.Namespace) -> tuple[Path, Path, list[Path]]:
    """Request files: bare (one static request), warm-up games, fresh games per round."""
    app = build(Settings(redis_url=redis_url, key_prefix=PREFIX), notifier=NoNotifier()).app
    per_connection = int(args.max_rate * args.duration / args.connections) + 1
    warmup_count = int(per_connection * args.warmup / args.duration) + 1
    started, games = time.perf_counter(), 0
    rounds = [work / f"round-{r}" for r in range(args.rounds)]
    for directory in rounds:
        games += write_connection_files(
            app, directory, args.game, args.players, args.connections, per_connection
        )
    warmup = work / "warmup"
    write_connection_files(app, warmup, args.game, args.players, args.connections, warmup_count)
    _, token, body = (rounds[0] / "conn-0.tsv").read_text().splitlines()[0].split("\t")
    bare = work / "bare"
    write_static_files(bare, args.connections, Request("/bare", token, body))
    elapsed = time.perf_counter() - started
    print(
        f"prepared {games} games ({per_connection} commands per connection and round) in {elapsed:.1f} s"
    )
    return bare, warmup, rounds


def measure(
    wrk: str,
    servers: tuple[Server, Server],
    client: Any,
    files: tuple[Path, Path, list[Path]],
    args: argparse.Namespace,
) -> tuple[list[Measured], list[Measured]]:
    """Warm both servers up, then one bare and one command run per round."""
    bare_files, warmup_files, rounds = files
    run_wrk(wrk, servers[0].url, bare_files, args.connections, args.warmup, cycle=True)
    run_wrk(wrk, servers[1].url, warmup_files, args.connections, args.warmup, cycle=False)
    bare, command = [], []
    for number, round_files in enumerate(rounds, 1):
        bare.append(measured(wrk, servers[0], client, bare_files, args, cycle=True))
        command.append(measured(wrk, servers[1], client, round_files, args, cycle=False))
        b, c = bare[-1].run, command[-1].run
        print(
            f"round {number}: bare {b.rate:.0f} req/s p99 {b.p99_ms:.1f} ms; "
            f"command {c.rate:.0f} req/s p99 {c.p99_ms:.1f} ms",
            flush=True,
        )
    return bare, command


def report(bare: list[Measured], command: list[Measured], args: argparse.Namespace) -> None:
    def med(figures: list[Measured], key: Callable[[Measured], float]) -> float:
        return statistics.median(key(f) for f in figures)

    print(
        f"\n{args.workers} gunicorn {args.worker_class} workers per server, {args.connections} "
        f"connections, {args.duration} s per run, {args.game} ({args.players} players); "
        f"medians of {args.rounds} rounds"
    )
    print(
        f"{'endpoint':<24}{'req/s':>7}{'p50 ms':>8}{'p99 ms':>8}"
        f"{'server CPU/req':>16}{'Redis CPU/req':>15}{'bad':>5}"
    )
    for name, figs in (("bare Flask + one XADD", bare), ("POST .../commands", command)):
        print(
            f"{name:<24}{med(figs, lambda f: f.run.rate):>7.0f}{med(figs, lambda f: f.run.p50_ms):>8.2f}"
            f"{med(figs, lambda f: f.run.p99_ms):>8.2f}{med(figs, lambda f: f.server_cpu_us):>13.0f} us"
            f"{med(figs, lambda f: f.redis_cpu_us):>12.0f} us{sum(f.run.bad for f in figs):>5}"
        )
    pairs = list(zip(bare, command, strict=True))
    throughput = statistics.median(c.run.rate / b.run.rate for b, c in pairs)
    p99 = statistics.median(c.run.p99_ms / b.run.p99_ms for b, c in pairs)
    cost = statistics.median(b.cpu_us / c.cpu_us for b, c in pairs)
    print(
        f"throughput ratio {throughput:.0%} (target >= {THROUGHPUT_TARGET:.0%}); "
        f"p99 ratio {p99:.2f}x (target <= {P99_TARGET:g}x); "
        f"CPU-cost ratio bare/command {cost:.0%}  [medians of per-round ratios]"
    )


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add(
        "--workers",
        type=int,
        default=default_workers(),
        help="gunicorn workers of each server (default: what tabletop serve starts)",
    )
    add("--worker-class", choices=tuple(WORKER_CLASSES), default="gevent")
    add("--connections", type=int, default=8, help="concurrent clients (one wrk thread each)")
    add("--duration", type=int, default=10, help="seconds of load per run")
    add("--rounds", type=int, default=3, help="runs per endpoint, alternating")
    add("--warmup", type=int, default=2, help="seconds of warm-up per endpoint")
    add("--game", default="schlitzohr")
    add("--players", type=int, default=2)
    add("--max-rate", type=float, default=5000, help="commands/s to prepare for (more voids a run)")
    add("--install-wrk", action="store_true", help="apt-get install wrk if it is missing")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    wrk = ensure_wrk(args.install_wrk)
    aof = {"appendonly": "yes", "appendfsync": "everysec"}
    with (
        tempfile.TemporaryDirectory(prefix="tt-api-bench-") as tmp,
        RedisServer(directory=Path(tmp) / "redis", config=aof) as redis_server,
    ):
        files = prepare(redis_server.url, Path(tmp), args)
        env = {
            **os.environ,
            "TABLETOP_REDIS_URL": redis_server.url,
            "TABLETOP_KEY_PREFIX": PREFIX,
            # The limiter stays on, as shipped, with a limit this load never reaches.
            "TABLETOP_RATE_LIMIT_PER_MINUTE": str(10**9),
        }
        client = redis.Redis.from_url(redis_server.url)
        with server(env, args, BARE_APP) as bare_server, server(env, args) as api_server:
            bare, command = measure(wrk, (bare_server, api_server), client, files, args)
        client.close()
    report(bare, command, args)
    return 1 if any(f.run.bad for f in bare + command) else 0


if __name__ == "__main__":
    sys.exit(main())
