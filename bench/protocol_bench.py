"""The whole play protocol, as real clients speak it, against a bare Flask + XADD endpoint.

    .venv/bin/python -m bench.protocol_bench [--connections 8 32] [--duration 5]
                                             [--repeats 5] [--workers N]
                                             [--legal-form full|compact] [--phases]

One throwaway Redis (AOF ``everysec``, like ``tabletop up``) and two servers started
exactly as ``tabletop serve`` starts them (gunicorn, ``--worker-class gevent``, the
worker count it picks: 2 here): the tabletop API, and ``bench.bare_app`` whose one
endpoint parses a JSON body and does one XADD. One asyncio load generator
(``bench.http_client``: a keep-alive connection per client) drives both.

A protocol client plays as a real client does: it creates its own 2-player
Schlitzohr game and takes both seats (``POST /v1/games``, ``POST .../seats``), keeps
an event stream (SSE) open on it, and then, turn by turn: reads the view when the
turn passes to the other seat (what that seat's client does when its stream says
so), reads ``/legal`` when the kinds it may send need parameters (move, place,
inspect; enumerated, or ``?form=compact`` as the web client reads it), and sends the
command with ``If-Match``; a finished game is followed by a new one. A bare client
POSTs the same kind of body to ``/bare`` in a loop.

Each repeat runs, for every connection count, one bare and one protocol run side by
side: all clients start, and the two servers take turns of ``--slice`` seconds (0.5)
until each had ``--duration``, the other's clients held meanwhile (who goes first
alternates between repeats). So both meet the same share of this shared VM's CPU,
which swings within seconds; ``--slice`` as long as ``--duration`` runs them one after
the other. Ratios are taken per pair and summarised as median (min-max):

- total requests/s, protocol / bare: target >= 0.75;
- command p99 / bare p99: target <= 1.5x.

Beside them, per request: the CPU of the servers' workers, Redis and the load generator
(all three share the cores, so while they are saturated the req/s ratio tends to the
ratio of their sums), and how much of that sum was kernel time (system calls, the
network stack, wake-ups) rather than user time (the interpreters, Redis and its Lua):
which kind of work a gap is made of.

With ``--phases`` both servers run metered (``bench.phases``) and the run ends with each
one's worker CPU per request, by request kind and phase (gunicorn's parse, the app, the
write, ...): which kind costs what. The meter costs CPU itself; compare within its table.

Exit status 1 if any run had an unexpected answer (its figures would flatter us).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import orjson
import redis

from bench import phases
from bench.api_bench import BARE_APP, PREFIX, Server, server
from bench.http_client import Connection
from bench.redis_target import redis_cpu_times
from engine.choices import CHOOSE
from events.redis_adapter.server import RedisServer
from service.cli.serve import default_workers
from service.runner.gunicorn import WORKER_CLASSES

THROUGHPUT_TARGET, P99_TARGET = 0.75, 1.5
PARAMETER_KINDS = frozenset({"move", "place", "inspect"})
"""Schlitzohr command kinds that carry parameters (a client reads ``/legal`` first)."""
JSON_HEADERS = {"Content-Type": "application/json"}
STREAMS = True
"""Whether protocol clients keep an event stream open on their game (``--no-streams``)."""
LEGAL_COMPACT = False
"""Whether a client reads ``/legal?form=compact`` (``--legal-form compact``: what the web
client reads; a k-of-n pick described once) instead of the enumerated ``/legal`` (the
default: what the terminal client and most scripts read)."""


class Gate:
    """Lets one side's clients send during its turn, and tells when the last request of
    a turn has come back (so a turn's time holds all its requests, and no request of
    one side runs in another side's turn)."""

    def __init__(self) -> None:
        self._open = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self.in_flight = 0
        self.done = False
        """Set when the run is over: clients stop at their next request."""

    async def enter(self) -> bool:
        """Wait for this side's turn; False once the run is over (send nothing)."""
        await self._open.wait()
        if self.done:
            return False
        self.in_flight += 1
        self._idle.clear()
        return True

    def leave(self) -> None:
        self.in_flight -= 1
        if self.in_flight == 0:
            self._idle.set()

    def open(self) -> None:
        self._open.set()

    async def close(self) -> None:
        """End the turn: hold new requests, and wait until those in flight are back."""
        self._open.clear()
        await self._idle.wait()

    def finish(self) -> None:
        self.done = True
        self._open.set()


@dataclass
class Tally:
    """What one run's clients measured: latencies (s) per request kind, and failures."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    bad: list[str] = field(default_factory=list)
    streams: int = 0
    gate: Gate = field(default_factory=Gate)

    def add(self, kind: str, seconds: float) -> None:
        self.latencies[kind].append(seconds)

    @property
    def requests(self) -> int:
        return sum(map(len, self.latencies.values()))


@dataclass(frozen=True)
class Run:
    """One load run of one endpoint."""

    tally: Tally
    seconds: float
    server_cpu_us: float
    redis_cpu_us: float
    client_cpu_share: float
    """CPU the load generator spent, as a share of one core over the run."""
    redis_calls: float
    """Redis commands per request (``INFO commandstats``; a script's own calls included):
    the same however busy the machine is."""
    machine_kernel_us: float
    """System (kernel) CPU per request of server, Redis and load generator together, µs:
    system calls, the network stack and wake-ups. The rest of :attr:`machine_cpu_us` is
    user CPU -- the interpreters, Redis's own work and its Lua."""

    @property
    def rate(self) -> float:
        return self.tally.requests / self.seconds

    @property
    def client_cpu_us(self) -> float:
        """CPU the load generator spent per request, µs."""
        return 1e6 * self.client_cpu_share / max(self.rate, 1e-9)

    @property
    def machine_cpu_us(self) -> float:
        """CPU per request of every part sharing the cores: server, Redis, load generator.
        While the cores are saturated, throughput goes as its inverse -- so this says
        which part a gap in req/s comes from."""
        return self.server_cpu_us + self.redis_cpu_us + self.client_cpu_us

    def p(self, kind: str | None, q: float) -> float:
        """Latency percentile ``q`` in ms of ``kind`` (None: all requests)."""
        values = (
            [v for vs in self.tally.latencies.values() for v in vs]
            if kind is None
            else self.tally.latencies[kind]
        )
        if not values:
            return float("nan")
        values = sorted(values)
        return 1e3 * values[min(len(values) - 1, int(q * len(values)))]


async def timed(
    tally: Tally, kind: str, conn: Connection, method: str, path: str,
    headers: dict[str, str], body: bytes = b"", ok: tuple[int, ...] = (200, 201),
    parse: Callable[[bytes], Any] = orjson.loads,
) -> Any:
    """Send one request, count its latency under ``kind``; its answer as ``parse`` reads
    it (None for an unexpected status, which is recorded, or once the run is over)."""
    if not await tally.gate.enter():
        return None
    try:
        started = time.perf_counter()
        answer = await conn.request(method, path, headers, body)
        tally.add(kind, time.perf_counter() - started)
    finally:
        tally.gate.leave()
    if answer.status not in ok:
        tally.bad.append(f"{method} {path}: {answer.status} {answer.body[:200]!r}")
        return None
    return parse(answer.body) if answer.body else None


def enumerated_commands(body: bytes) -> dict[str, Any]:
    """An enumerated ``/legal`` answer with its commands left as JSON texts, unparsed.

    Why: the load generator runs every client on one event loop, on the cores the
    servers use. A full ``/legal`` runs to 8,008 commands (338 KB); parsing it took
    9-12 ms here (orjson), during which no other client's answer is read -- 32 clients'
    p99 then measured the generator (its loop lagged up to 231 ms), not the server. A
    client on its own machine pays that on its own. Our commands are flat objects (no
    ``{`` inside one) and ``commands`` is the document's last member, so the texts are
    the pieces between ``},{``; :func:`pick_command` parses the one it picks."""
    marker = b'"commands":['
    start = body.index(marker) + len(marker)
    inner = body[start : body.rindex(b"]")]
    items = inner[1:-1].split(b"},{") if inner else []
    return {"commands": items}


async def play_games(host: str, port: int, index: int, tally: Tally) -> None:
    """One protocol client: games of its own, one after the other, until the run is over."""
    conn, pick = Connection(host, port), random.Random(index)
    try:
        while not tally.gate.done and not tally.bad:
            await play_one(conn, host, port, pick, tally)
    finally:
        await conn.close()


async def play_one(
    conn: Connection, host: str, port: int, pick: random.Random, tally: Tally
) -> None:
    body = json.dumps({"game": "schlitzohr", "players": 2}).encode()
    created = await timed(tally, "create", conn, "POST", "/v1/games", JSON_HEADERS, body)
    if created is None:
        return
    game_id = created["game_id"]
    tokens: list[dict[str, str]] = []
    view: Any = None  # the seat's view, as the last answer carried it
    for seat in (0, 1):
        joined = await timed(
            tally, "join", conn, "POST", f"/v1/games/{game_id}/seats", JSON_HEADERS,
            json.dumps({"name": f"p{seat}", "seat": seat}).encode(),
        )
        if joined is None:
            return
        tokens.append({"Authorization": f"Bearer {joined['token']}"})
        view = joined["view"]
    stream = asyncio.create_task(
        Connection(host, port).stream(f"/v1/games/{game_id}/events/stream", tokens[0])
        if STREAMS else asyncio.sleep(0)
    )
    tally.streams += STREAMS
    last_seat = 1  # the second join answered seat 1's view
    try:
        while view["status"] == "running" and not tally.gate.done:
            (seat_text, kinds), = view["to_act"].items()
            seat = int(seat_text)
            auth = tokens[seat]
            if seat != last_seat:  # its stream told this seat's client: it reads its view
                view = await timed(tally, "view", conn, "GET", f"/v1/games/{game_id}", auth)
                if view is None:
                    return
                last_seat = seat
            if PARAMETER_KINDS.intersection(kinds):
                legal = await timed(
                    tally, "legal", conn, "GET",
                    f"/v1/games/{game_id}/legal" + ("?form=compact" if LEGAL_COMPACT else ""), auth,
                    parse=orjson.loads if LEGAL_COMPACT else enumerated_commands,
                )
                if legal is None:
                    return
                command = pick_command(pick, legal["commands"])
            else:
                command = {"kind": pick.choice(kinds)}
            headers = {**auth, **JSON_HEADERS, "If-Match": f'"{view["version"]}"'}
            outcome = await timed(
                tally, "command", conn, "POST", f"/v1/games/{game_id}/commands", headers,
                json.dumps({"command": command}).encode(),
            )
            if outcome is None:
                return
            view = outcome["view"]
    finally:
        stream.cancel()
        await asyncio.gather(stream, return_exceptions=True)


def pick_command(pick: random.Random, commands: list[Any]) -> dict[str, Any]:
    """One legal command, uniformly at random over the commands the list stands for (so
    both forms of ``/legal`` play the same games): a compact choice (``engine.choices``)
    weighs as many commands as it stands for, and is settled by picking its ``count``
    items of ``from``, sent in ascending order; an unparsed text
    (:func:`enumerated_commands`) is parsed once picked."""
    weights = [
        math.comb(len(c[CHOOSE]["from"]), c[CHOOSE]["count"])
        if isinstance(c, dict) and CHOOSE in c else 1
        for c in commands
    ]
    picked = pick.choices(commands, weights)[0]
    command = dict(orjson.loads(b"{" + picked + b"}") if isinstance(picked, bytes) else picked)
    spec = command.pop(CHOOSE, None)
    if spec is not None:
        command[spec["field"]] = sorted(pick.sample(spec["from"], spec["count"]))
    return command


async def post_bare(host: str, port: int, index: int, tally: Tally) -> None:
    """One bare client: the same kind of body to ``/bare``, one after the other."""
    conn = Connection(host, port)
    body = json.dumps({"command": {"kind": "roll"}}).encode()
    headers = {**JSON_HEADERS, "Authorization": "Bearer bench", "If-Match": '"1"'}
    try:
        while not tally.gate.done and not tally.bad:
            await timed(tally, "command", conn, "POST", "/bare", headers, body)
    finally:
        await conn.close()


class Cpu(NamedTuple):
    """(user, system) CPU seconds so far of a server, of Redis and of this load generator."""

    server: tuple[float, float]
    redis: tuple[float, float]
    client: tuple[float, float]


def cpu_now(target: Server, client: Any) -> Cpu:
    """The CPU spent so far by ``target``'s processes, by Redis (``client``'s) and by this
    process, each as the kernel accounted it."""
    own = os.times()
    return Cpu(target.cpu_times(), redis_cpu_times(client), (own.user, own.system))


@dataclass
class Side:
    """One server under load in a run in turns, and what its turns added up to."""

    target: Server
    protocol: bool
    tally: Tally = field(default_factory=Tally)
    seconds: float = 0.0
    server_cpu_s: float = 0.0
    redis_cpu_s: float = 0.0
    client_cpu_s: float = 0.0
    kernel_s: float = 0.0
    redis_calls: int = 0

    def add_cpu(self, before: Cpu, after: Cpu) -> None:
        """Count the CPU spent between two samples (one turn of this side)."""
        user = [a[0] - b[0] for b, a in zip(before, after, strict=True)]
        system = [a[1] - b[1] for b, a in zip(before, after, strict=True)]
        self.server_cpu_s += user[0] + system[0]
        self.redis_cpu_s += user[1] + system[1]
        self.client_cpu_s += user[2] + system[2]
        self.kernel_s += sum(system)

    def run(self) -> Run:
        n = max(self.tally.requests, 1)
        return Run(
            self.tally, self.seconds, 1e6 * self.server_cpu_s / n, 1e6 * self.redis_cpu_s / n,
            self.client_cpu_s / max(self.seconds, 1e-9), self.redis_calls / n,
            1e6 * self.kernel_s / n,
        )


def load(
    targets: list[tuple[Server, bool]], client: Any, clients: int, seconds: float, slice_s: float
) -> list[Run]:
    """``clients`` concurrent clients per target, all started at once, the targets taking
    turns of ``slice_s`` seconds (in the order given) until each had ``seconds``.

    Why turns, not one run after the other: this VM's CPU is shared, and the share it
    gets swings within seconds (steal time of 4-50 % in one run, ``vmstat``); short
    turns give every target the same weather. A target's clients are held at their next
    request while another's turn runs, keeping their connections, games and streams;
    a turn ends once its last request is back, and only turns count: each request lies
    wholly in one turn of its own target, and each target's time, CPU and Redis figures
    are summed over its turns. ``slice_s >= seconds``: one turn each, back to back."""
    sides = [Side(target, protocol) for target, protocol in targets]

    async def turn(side: Side) -> None:
        cpu, calls = cpu_now(side.target, client), redis_calls(client)
        started = time.perf_counter()
        side.tally.gate.open()
        await asyncio.sleep(min(slice_s, seconds - side.seconds))
        await side.tally.gate.close()
        side.seconds += time.perf_counter() - started
        side.add_cpu(cpu, cpu_now(side.target, client))
        side.redis_calls += redis_calls(client) - calls

    async def everyone() -> None:
        tasks = []
        for side in sides:
            host, port = side.target.url.removeprefix("http://").split(":")
            one = play_games if side.protocol else post_bare
            tasks += [asyncio.create_task(one(host, int(port), i, side.tally)) for i in range(clients)]
        while any(side.seconds < seconds for side in sides):
            for side in sides:
                if side.seconds < seconds:
                    await turn(side)
        for side in sides:
            side.tally.gate.finish()
        await asyncio.gather(*tasks)

    asyncio.run(everyone())
    return [side.run() for side in sides]


def redis_calls(client: Any) -> int:
    """Commands Redis ran so far, but this bench's own INFO calls."""
    stats = client.info("commandstats")
    return sum(v["calls"] for k, v in stats.items() if k != "cmdstat_info")


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def report(pairs: dict[int, list[tuple[Run, Run]]], args: argparse.Namespace) -> None:
    print(
        f"\n{args.workers} gunicorn {args.worker_class} workers per server; {args.duration} s per "
        f"run in turns of {args.slice} s; {args.repeats} repeats; figures are median (min-max) "
        "over the repeats"
    )
    for clients, runs in pairs.items():
        bares, protos = [b for b, _ in runs], [p for _, p in runs]
        print(f"\nC={clients}")
        print(f"  {'':<22}{'req/s':>22}{'p50 ms':>20}{'p99 ms':>20}{'server CPU/req us':>26}"
              f"{'Redis calls/req':>22}")
        rows = (("bare POST (one XADD)", bares, "command", True),
                ("protocol, all", protos, None, True),
                ("protocol, commands", protos, "command", False),
                ("protocol, /legal", protos, "legal", False),
                ("protocol, views", protos, "view", False))
        for name, group, kind, whole in rows:
            rate = spread([r.rate for r in group]) if whole else ""
            cpu = spread([r.server_cpu_us for r in group]) if whole else ""
            calls = spread([r.redis_calls for r in group]) if whole else ""
            print(
                f"  {name:<22}{rate:>22}{spread([r.p(kind, 0.5) for r in group]):>20}"
                f"{spread([r.p(kind, 0.99) for r in group]):>20}{cpu:>26}{calls:>22}"
            )
        commands = sum(len(p.tally.latencies["command"]) for p in protos)
        reads = sum(len(p.tally.latencies["legal"]) + len(p.tally.latencies["view"]) for p in protos)
        games = sum(len(p.tally.latencies["create"]) for p in protos)
        print(f"  reads per command {reads / max(commands, 1):.2f}; games {games}; "
              f"streams {sum(p.tally.streams for p in protos)}")
        for name, group in (("bare", bares), ("protocol", protos)):
            print(f"  CPU/req us, {name:<9} server {spread([r.server_cpu_us for r in group])}, "
                  f"Redis {spread([r.redis_cpu_us for r in group])}, "
                  f"load generator {spread([r.client_cpu_us for r in group])}; "
                  f"all {spread([r.machine_cpu_us for r in group])}")
        kernel = {name: spread([r.machine_kernel_us for r in group])
                  for name, group in (("bare", bares), ("protocol", protos))}
        print(f"  of which kernel (system CPU), us/req: bare {kernel['bare']}, "
              f"protocol {kernel['protocol']}   (the rest is user CPU)")
        print(f"  bare all / protocol all CPU  {spread([b.machine_cpu_us / p.machine_cpu_us for b, p in runs])}"
              "   (what the req/s ratio tends to while the cores are saturated)")
        throughput = [p.rate / b.rate for b, p in runs]
        p99 = [p.p("command", 0.99) / b.p("command", 0.99) for b, p in runs]
        met = lambda ok: "met" if ok else "MISSED"  # noqa: E731
        print(f"  total req/s ratio  {spread(throughput)}   target >= {THROUGHPUT_TARGET}: "
              f"{met(statistics.median(throughput) >= THROUGHPUT_TARGET)}")
        print(f"  command p99 ratio  {spread(p99)}   target <= {P99_TARGET}x: "
              f"{met(statistics.median(p99) <= P99_TARGET)}")


def report_baseline(
    pairs: dict[int, list[tuple[Run, Run]]], before: dict[int, list[Run]], args: argparse.Namespace
) -> None:
    """This tree's API against the baseline's (``--baseline``), paired per repeat."""
    print(f"\nbefore = the API of {args.baseline} {' '.join(args.baseline_env)}; after = this tree")
    for clients, runs in pairs.items():
        old = before[clients]
        print(f"C={clients}")
        rows = (
            ("total req/s / bare", [b.rate for b, _ in runs], [o.rate / b.rate for (b, _), o in zip(runs, old, strict=True)],
             [p.rate / b.rate for b, p in runs]),
            ("command p99 / bare p99", None,
             [o.p("command", 0.99) / b.p("command", 0.99) for (b, _), o in zip(runs, old, strict=True)],
             [p.p("command", 0.99) / b.p("command", 0.99) for b, p in runs]),
            ("server CPU us/request", None, [o.server_cpu_us for o in old], [p.server_cpu_us for _, p in runs]),
            ("Redis CPU us/request", None, [o.redis_cpu_us for o in old], [p.redis_cpu_us for _, p in runs]),
            ("load gen CPU us/request", None, [o.client_cpu_us for o in old], [p.client_cpu_us for _, p in runs]),
            ("Redis calls/request", None, [o.redis_calls for o in old], [p.redis_calls for _, p in runs]),
        )
        for name, _, b, a in rows:
            change = [y / x for x, y in zip(b, a, strict=True)]
            print(f"  {name:<24} before {spread(b):>22}  after {spread(a):>22}  after/before {spread(change)}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add = parser.add_argument
    add("--connections", type=int, nargs="+", default=[8, 32], help="concurrent clients")
    add("--duration", type=float, default=5.0, help="seconds per run (summed over its turns)")
    add("--repeats", type=int, default=5, help="pairs of runs per connection count")
    add("--slice", type=float, default=0.5, help="seconds per turn: the servers of a repeat "
        "take turns this long until each had --duration (>= --duration: one after the other)")
    add("--warmup", type=float, default=2.0, help="seconds of warm-up per server")
    add("--workers", type=int, default=default_workers(), help="gunicorn workers per server")
    add("--no-streams", action="store_true", help="protocol clients open no event stream")
    add("--legal-form", choices=("full", "compact"), default="full",
        help="the form of /legal protocol clients read (compact: as the web client does)")
    add("--worker-class", choices=tuple(WORKER_CLASSES), default="gevent")
    add("--phases", action="store_true", help="meter both servers' workers (bench.phases) and "
        "print CPU per request by kind and phase; the meter costs CPU itself, so this run's "
        "ratios are not comparable with an unmetered run's")
    add("--baseline", help="a source tree (e.g. `git archive main` unpacked) whose API runs "
        "as a third server, interleaved with the others: before/after figures")
    add("--baseline-env", nargs="*", default=[], metavar="KEY=VALUE",
        help="environment of the baseline API only (e.g. TABLETOP_RATE_LIMIT_PER_MINUTE=0)")
    args = parser.parse_args(argv)
    if args.phases and args.worker_class != "gevent":
        parser.error("--phases meters gevent workers only (it charges CPU at greenlet switches)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    global STREAMS, LEGAL_COMPACT
    STREAMS = not args.no_streams
    LEGAL_COMPACT = args.legal_form == "compact"
    aof = {"appendonly": "yes", "appendfsync": "everysec"}
    with (
        tempfile.TemporaryDirectory(prefix="tt-protocol-bench-") as tmp,
        RedisServer(directory=Path(tmp) / "redis", config=aof) as redis_server,
    ):
        env = {
            **os.environ,
            "TABLETOP_REDIS_URL": redis_server.url,
            "TABLETOP_KEY_PREFIX": PREFIX,
            # The limiters stay on, as shipped, with limits this load never reaches.
            "TABLETOP_RATE_LIMIT_PER_MINUTE": str(10**9),
            "TABLETOP_CREATE_LIMIT_PER_MINUTE": str(10**9),
            "TABLETOP_MAX_OPEN_GAMES_PER_CLIENT": "0",  # every client shares one address
        }
        client = redis.Redis.from_url(redis_server.url)
        pairs: dict[int, list[tuple[Run, Run]]] = {c: [] for c in args.connections}
        before: dict[int, list[Run]] = {c: [] for c in args.connections}
        baseline_env = {**env, **dict(kv.split("=", 1) for kv in args.baseline_env)}
        phases_dir = Path(tmp) / "phases"
        if args.phases:  # both servers metered (bench.phases); the baseline is not
            phases_dir.mkdir()
            env[phases.DIR_ENV] = str(phases_dir)
        with contextlib.ExitStack() as stack:
            bare = stack.enter_context(server(env, args, "bench.phases:bare" if args.phases else BARE_APP))
            api = stack.enter_context(server(env, args, "bench.phases:api" if args.phases else None))
            old = stack.enter_context(server(baseline_env, args, cwd=args.baseline)) if args.baseline else None
            for target, protocol in ((bare, False), (api, True), (old, True)):
                if target is not None:
                    load([(target, protocol)], client, max(args.connections), args.warmup, args.warmup)
            for repeat in range(args.repeats):
                for clients in args.connections:
                    order = [("bare", bare), ("api", api)] + ([("old", old)] if old else [])
                    shift = repeat % len(order)  # rotate who goes first
                    turns = order[shift:] + order[:shift]
                    loaded = load([(s, name != "bare") for name, s in turns], client, clients,
                                  args.duration, args.slice)
                    runs = {name: run for (name, _), run in zip(turns, loaded, strict=True)}
                    b, p = runs["bare"], runs["api"]
                    pairs[clients].append((b, p))
                    if old:
                        before[clients].append(runs["old"])
                    print(
                        f"repeat {repeat + 1} C={clients}: bare {b.rate:.0f} req/s p99 "
                        f"{b.p('command', 0.99):.1f} ms; protocol {p.rate:.0f} req/s, commands p99 "
                        f"{p.p('command', 0.99):.1f} ms; ratios {p.rate / b.rate:.2f} "
                        f"{p.p('command', 0.99) / b.p('command', 0.99):.2f}x; load generator CPU "
                        f"{b.client_cpu_share:.0%} / {p.client_cpu_share:.0%} of a core",
                        flush=True,
                    )
                    if old:
                        o = runs["old"]
                        print(f"  baseline API {o.rate:.0f} req/s, commands p99 "
                              f"{o.p('command', 0.99):.1f} ms; ratios {o.rate / b.rate:.2f} "
                              f"{o.p('command', 0.99) / b.p('command', 0.99):.2f}x", flush=True)
                    for bad in [x for r in runs.values() for x in r.tally.bad][:3]:
                        print("  unexpected:", bad)
        client.close()
        if args.phases:
            phases.report(phases_dir)
    report(pairs, args)
    if args.baseline:
        report_baseline(pairs, before, args)
    every_run = [r for rs in pairs.values() for pair in rs for r in pair]
    every_run += [r for rs in before.values() for r in rs]
    return 1 if any(r.tally.bad for r in every_run) else 0


if __name__ == "__main__":
    sys.exit(main())
