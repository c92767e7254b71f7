"""Idle connections against commands and probes: do thousands of open streams cost anything?

    .venv/bin/python -m bench.idle_bench [--streams 2000] [--long-polls 500] [--commands 400]

Starts a throwaway Redis and ``tabletop serve`` as shipped (2 workers, the default
worker class, default settings but a rate limit above what the command clients reach,
as in ``bench.api_bench``), then, in one run:

1. **quiet**: ``--commands`` commands (4 client threads, each playing its own games)
   with nothing else open, while a prober asks ``/healthz`` every 50 ms;
2. **idle load**: opens ``--streams`` SSE streams and ``--long-polls`` long polls
   (``?wait=30``, re-issued when answered; streams reconnect when the server ends
   them) on idle games, waits until all are established, then the same commands and
   probes again;
3. closes everything.

It reports command p50/p99 of both phases and their ratio (target: p99 with the idle
load at most 2x the quiet one), every ``/healthz`` latency's maximum per phase (the
target: every probe answered), and how many idle connections were held or refused.

Loopback only. Clients spread over source addresses 127.1.x.y (4 connections each),
as distinct clients would be: the per-client cap keys anonymous clients by address.
Every loop is bounded (counts, deadlines).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import requests

from events.redis_adapter.server import RedisServer, free_port

ROOT = Path(__file__).resolve().parents[1]
ADMIN = "idle-bench-admin-token-0123456789"
PER_ADDRESS = 4
CLIENT_THREADS = 4
PROBE_EVERY_S = 0.05
PROBE_TIMEOUT_S = 10.0
ESTABLISH_TIMEOUT_S = 120.0
RATE_LIMIT = 1_000_000


def source(i: int) -> str:
    n = i // PER_ADDRESS
    return f"127.1.{n // 250}.{n % 250 + 1}"


@dataclass
class Idle:
    """Counters of the idle connections (updated from the asyncio thread)."""

    streams_open: int = 0
    polls_open: int = 0
    refused: dict[int, int] = field(default_factory=dict)
    errors: int = 0


# -- the idle load (asyncio: thousands of sockets in one thread) ---------------------


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, int | None]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    length = None
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    return status, length


async def _stream(host: str, port: int, src: str, path: str, idle: Idle, stop: asyncio.Event) -> None:
    request = f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode()
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port, local_addr=(src, 0))
        except OSError:
            idle.errors += 1
            await asyncio.sleep(1)
            continue
        try:
            writer.write(request)
            status, _ = await _read_head(reader)
            if status != 200:
                idle.refused[status] = idle.refused.get(status, 0) + 1
                await asyncio.sleep(1)
                continue
            idle.streams_open += 1
            try:
                while not stop.is_set() and await reader.read(65536):
                    pass
            finally:
                idle.streams_open -= 1
        except (OSError, asyncio.IncompleteReadError):
            idle.errors += 1
        finally:
            writer.close()


async def _long_poll(host: str, port: int, src: str, game_id: str, idle: Idle, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port, local_addr=(src, 0))
        except OSError:
            idle.errors += 1
            await asyncio.sleep(1)
            continue
        try:
            while not stop.is_set():
                # after=<current> with wait=30: held open until the server's long-poll limit.
                writer.write(f"GET /v1/games/{game_id}?wait=30 HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
                idle.polls_open += 1
                try:
                    status, length = await _read_head(reader)
                    await reader.readexactly(length or 0)
                finally:
                    idle.polls_open -= 1
                if status != 200:
                    idle.refused[status] = idle.refused.get(status, 0) + 1
                    await asyncio.sleep(1)
        except (OSError, asyncio.IncompleteReadError):
            idle.errors += 1
        finally:
            writer.close()


class IdleLoad:
    """Streams and long polls held open by an asyncio loop in a thread of its own."""

    def __init__(self, url: str, games: list[tuple[str, int]], streams: int, polls: int) -> None:
        """``games``: the idle games' ids and head versions."""
        host, _, port = url.removeprefix("http://").partition(":")
        self.address = (host, int(port))
        self.games, self.streams, self.polls = games, streams, polls
        self.idle = Idle()
        self._loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._started = threading.Event()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._main())

    async def _main(self) -> None:
        self._stop = asyncio.Event()
        self._started.set()
        host, port = self.address
        tasks = []
        for i in range(self.streams):
            game, head = self.games[i % len(self.games)]
            path = f"/v1/games/{game}/events/stream?after={head}"
            tasks.append(asyncio.create_task(_stream(host, port, source(i), path, self.idle, self._stop)))
            if i % 100 == 99:
                await asyncio.sleep(0.05)  # a ramp, not a SYN flood
        for i in range(self.polls):
            game = self.games[i % len(self.games)][0]
            src = source(self.streams + i)
            tasks.append(asyncio.create_task(_long_poll(host, port, src, game, self.idle, self._stop)))
            if i % 100 == 99:
                await asyncio.sleep(0.05)
        await self._stop.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    def start(self) -> None:
        self._thread.start()
        self._started.wait()

    def established(self) -> bool:
        return self.idle.streams_open >= self.streams and self.idle.polls_open >= self.polls

    def stop(self) -> None:
        assert self._stop is not None
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(60)


# -- commands and probes --------------------------------------------------------------


class Prober(threading.Thread):
    """GET /healthz every PROBE_EVERY_S; records every latency (a failure counts as inf)."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.latencies: list[float] = []
        self.failures = 0
        self.halt = threading.Event()

    def run(self) -> None:
        with requests.Session() as session:
            while not self.halt.wait(PROBE_EVERY_S):
                start = time.perf_counter()
                try:
                    ok = session.get(self.url + "/healthz", timeout=PROBE_TIMEOUT_S).status_code == 200
                except requests.RequestException:
                    ok = False
                self.latencies.append(time.perf_counter() - start)
                self.failures += not ok


def _new_game(session: requests.Session, url: str) -> tuple[str, list[str]]:
    game = session.post(url + "/v1/games", json={"game": "schlitzohr", "players": 2}, timeout=30).json()
    tokens = []
    for i in range(2):
        joined = session.post(f"{url}/v1/games/{game['game_id']}/seats", json={"name": f"p{i}"}, timeout=30)
        tokens.append(joined.json()["token"])
    return game["game_id"], tokens


def play_commands(url: str, count: int, out: list[float]) -> None:
    """``count`` legal commands, one client; appends each command's latency to ``out``."""
    with requests.Session() as session:
        game_id, tokens = _new_game(session, url)
        done = 0
        while done < count:
            # With a seat token: the rate limit then counts per token, not per address.
            view = session.get(
                f"{url}/v1/games/{game_id}",
                headers={"Authorization": f"Bearer {tokens[0]}"},
                timeout=30,
            ).json()
            if view["status"] == "finished":
                game_id, tokens = _new_game(session, url)
                continue
            seat = int(min(view["to_act"], key=int))
            legal = session.get(
                f"{url}/v1/games/{game_id}/legal",
                headers={"Authorization": f"Bearer {tokens[seat]}"},
                timeout=30,
            ).json()["commands"]
            start = time.perf_counter()
            reply = session.post(
                f"{url}/v1/games/{game_id}/commands",
                json={"command": legal[0], "expected_version": view["version"]},
                headers={"Authorization": f"Bearer {tokens[seat]}"},
                timeout=30,
            )
            out.append(time.perf_counter() - start)
            if reply.status_code != 200:
                raise RuntimeError(f"command answered {reply.status_code}: {reply.text[:200]}")
            done += 1


@dataclass
class Phase:
    name: str
    commands: list[float]
    probes: list[float]
    probe_failures: int

    def pct(self, q: float) -> float:
        ordered = sorted(self.commands)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def phase(name: str, url: str, count: int) -> Phase:
    prober = Prober(url)
    prober.start()
    per_thread = count // CLIENT_THREADS
    results: list[list[float]] = [[] for _ in range(CLIENT_THREADS)]
    threads = [
        threading.Thread(target=play_commands, args=(url, per_thread, results[i]))
        for i in range(CLIENT_THREADS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    prober.halt.set()
    prober.join(PROBE_TIMEOUT_S + 1)
    commands = [x for r in results for x in r]
    if len(commands) < per_thread * CLIENT_THREADS:
        raise RuntimeError(f"{name}: a client thread failed")
    return Phase(name, commands, prober.latencies, prober.failures)


# -- the run ----------------------------------------------------------------------------


def raise_fd_limit() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def start_server(redis_url: str, workers: int, worker_class: str) -> tuple[str, subprocess.Popen[bytes]]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update(TABLETOP_REDIS_URL=redis_url, TABLETOP_ADMIN_TOKEN=ADMIN, TABLETOP_KEY_PREFIX="idle:")
    # As in bench/api_bench.py: the rate limiter stays on, its limit above what the
    # command clients reach (they play as fast as they can with a few tokens).
    env["TABLETOP_RATE_LIMIT_PER_MINUTE"] = str(RATE_LIMIT)
    # Every client of this bench shares one address: the per-address limits on games
    # created and held open (issue #15) would refuse its idle games, not measure them.
    env["TABLETOP_CREATE_LIMIT_PER_MINUTE"] = str(RATE_LIMIT)
    env["TABLETOP_MAX_OPEN_GAMES_PER_CLIENT"] = "0"
    env["TABLETOP_MAX_UNFINISHED_GAMES_PER_CLIENT"] = "0"
    argv = [sys.executable, "-m", "service.cli", "serve", "--bind", f"127.0.0.1:{port}"]
    argv += ["--workers", str(workers), "--worker-class", worker_class]
    process = subprocess.Popen(argv, env=env, cwd=ROOT, process_group=0, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if requests.get(url + "/readyz", timeout=2).status_code == 200:
                return url, process
        except requests.RequestException:
            pass
        time.sleep(0.2)
    os.killpg(process.pid, signal.SIGTERM)
    raise RuntimeError("the API did not come up")


def report(quiet: Phase, loaded: Phase, idle: Idle, args: argparse.Namespace) -> None:
    print(f"\n{args.workers} workers ({args.worker_class}), {len(quiet.commands)} commands per phase "
          f"from {CLIENT_THREADS} client threads; /healthz every {PROBE_EVERY_S * 1000:.0f} ms")
    print(f"{'phase':<34} {'cmd p50 ms':>10} {'cmd p99 ms':>10} {'probes':>7} {'probe max ms':>12} {'failed':>6}")
    for p in (quiet, loaded):
        print(f"{p.name:<34} {p.pct(0.50):>10.1f} {p.pct(0.99):>10.1f} {len(p.probes):>7} "
              f"{max(p.probes) * 1000:>12.1f} {p.probe_failures:>6}")
    print(f"p99 ratio (idle load / quiet): {loaded.pct(0.99) / quiet.pct(0.99):.2f}x (target <= 2x)")
    print(f"idle load held: {args.streams} SSE streams, {args.long_polls} long polls; "
          f"refused {idle.refused or 'none'}, connection errors {idle.errors}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--long-polls", type=int, default=500)
    parser.add_argument("--commands", type=int, default=400, help="commands per phase")
    parser.add_argument("--games", type=int, default=40, help="idle games the streams watch")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--worker-class", default="gevent", choices=("gevent", "gthread"))
    args = parser.parse_args(argv)
    raise_fd_limit()
    with RedisServer(config={"appendonly": "yes", "appendfsync": "everysec", "save": ""}) as redis_server:
        url, process = start_server(redis_server.url, args.workers, args.worker_class)
        try:
            with requests.Session() as session:
                ids = [_new_game(session, url)[0] for _ in range(args.games)]
                # Each stream resumes at its game's head: idle until the game moves (a
                # resume point beyond the head is refused, 422).
                games = [(g, session.get(f"{url}/v1/games/{g}", timeout=30).json()["version"]) for g in ids]
            phase("warm-up", url, 40)
            quiet = phase("quiet", url, args.commands)
            load = IdleLoad(url, games, args.streams, args.long_polls)
            ramp = Prober(url)  # /healthz while thousands of connections arrive
            ramp.start()
            load.start()
            deadline = time.monotonic() + ESTABLISH_TIMEOUT_S
            while not load.established() and time.monotonic() < deadline:
                time.sleep(0.5)
            ramp.halt.set()
            ramp.join(PROBE_TIMEOUT_S + 1)
            held = (load.idle.streams_open, load.idle.polls_open)
            print(f"established: {held[0]} streams, {held[1]} long polls", flush=True)
            loaded = phase(f"{held[0]} streams + {held[1]} long polls", url, args.commands)
            idle = load.idle
            load.stop()
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(60)
    report(quiet, loaded, idle, args)
    print(f"/healthz while the idle load connected: {len(ramp.latencies)} probes, "
          f"max {max(ramp.latencies, default=0) * 1000:.1f} ms, {ramp.failures} failed")
    ok = loaded.probe_failures == 0 and quiet.probe_failures == 0 and ramp.failures == 0
    ok = ok and held == (args.streams, args.long_polls)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
