"""Event-store throughput against like-for-like raw Redis baselines, in one run.

    .venv/bin/python -m bench.store_bench [--redis-url URL | --redis-server BINARY]
                                          [--rounds 5] [--no-durability]

Every figure is a ratio taken per round, the two sides run back to back in that round
(so that load from other processes hits both alike), summarised as median (min-max)
over the rounds:

- append, one event per call: ``RedisEventStore.append`` against a raw ``XADD`` of
  the same event, with 1 client and with ``--clients`` concurrent clients (threads,
  one game each). Target >= 0.70.
- append, a command's events per call (what the service does): against the same
  events written raw as *one pipelined batch* (one round trip, like ours).
- replay: ``read_all`` (decode, upcast, envelopes; as the admin and as a seat, with
  redaction) against a raw read of the same stream in the same chunks
  (``defaults.READ_CHUNK`` per ``XRANGE``) that decodes and keeps every event.
- matched durability (unless ``--no-durability``; needs the ``bench`` extra):
  our append on a Redis with AOF ``appendfsync always`` against the ``eventsourcing``
  library's SQLite recorder (WAL, ``synchronous=FULL``: an fsync per commit), both
  on the same disk, each command's events one transaction, both storing the same
  records (``bench.durable_records``: the sealed envelopes, so the same bytes are
  fsynced), each encoding them in its timed loop. Targets >= 1x with one client, >= 2x
  with ``--clients``. Beside it: the floor (raw pipelined XADDs of the same records on
  the same Redis), and SQLite storing the engine's bare events (the baseline before the
  sixteenth round; about a quarter of the bytes).

Without ``--redis-url`` a throwaway redis-server is started; with one, only keys
under a fresh ``bench:<id>:`` prefix are written, and deleted afterwards.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import redis

from bench.durable_records import Record, encode, stored_records
from bench.redis_target import redis_cpu, redis_target, server_info
from engine.model import Event
from engine.playout import play
from engine.registry import get_game
from events.model import defaults, records
from events.model.envelope import SYSTEM, seat_actor
from events.model.port import GameRef
from events.model.redaction import ADMIN
from events.redis_adapter.server import RedisServer
from events.redis_adapter.store import RedisEventStore

Batch = list[Event]


def sample_batches(count: int) -> list[Batch]:
    """At least ``count`` events of real 4-player Schlitzohr games, grouped per command."""
    game = get_game("schlitzohr")
    batches: list[Batch] = []
    seed = 0
    while sum(map(len, batches)) < count:
        play(game, 4, b"bench%d" % seed, on_step=lambda s, seat, c, new: batches.append(list(new)))
        seed += 1
    return batches


def run_clients(clients: int, work: Callable[[int], None]) -> float:
    """Seconds for ``clients`` threads to each run ``work(index)``, started together."""
    barrier = threading.Barrier(clients + 1)

    def worker(i: int) -> None:
        barrier.wait()
        work(i)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    return time.perf_counter() - start


class WriteBench:
    """Interleaved rounds of raw and store writes of the same batches."""

    def __init__(
        self, client: redis.Redis, prefix: str, batches: list[Batch], clients: int
    ) -> None:
        self.client, self.prefix, self.clients = client, prefix, clients
        self.store = RedisEventStore(client, prefix=prefix)
        share = len(batches) // clients
        self.shares = [batches[i * share : (i + 1) * share] for i in range(clients)]
        self.events = sum(len(b) for s in self.shares for b in s)
        self.games = [self._new_game(f"c{clients}x{i}") for i in range(clients)]
        self.versions = [1] * clients

    def _new_game(self, game_id: str) -> GameRef:
        ref = GameRef(game_id + uuid.uuid4().hex[:6], "schlitzohr")
        seed = records.new_seed()
        self.store.create(
            ref, [records.game_created(get_game("schlitzohr"), {}, 4, seed)], seed, actor=SYSTEM
        )
        return ref

    def raw(self, i: int, pipelined: bool) -> None:
        key, client = f"{self.prefix}raw:{i}", self.client
        for batch in self.shares[i]:
            payloads = [json.dumps(e.to_json()) for e in batch]
            if pipelined:
                xadd_pipelined(client, key, payloads)
            else:
                for payload in payloads:
                    client.xadd(key, {"e": payload})

    def ours(self, i: int) -> None:
        ref, version = self.games[i], self.versions[i]
        for batch in self.shares[i]:
            version = self.store.append(
                ref, batch, version, actor=seat_actor(0), command={"kind": "roll"}
            ).last_version
        self.versions[i] = version

    def round(self) -> dict[str, tuple[float, float]]:
        """One round of raw, raw pipelined and ours, back to back: for each, events/s and
        the CPU per event (this process and Redis, in µs: what the kernel accounted, so
        it holds however busy the machine is, unlike the rate)."""
        runs: dict[str, Callable[[int], None]] = {
            "raw": lambda i: self.raw(i, False),
            "raw pipelined": lambda i: self.raw(i, True),
            "ours": self.ours,
        }
        out = {}
        for name, work in runs.items():
            cpu_before, redis_before = time.process_time(), redis_cpu(self.client)
            seconds = run_clients(self.clients, work)
            cpu = time.process_time() - cpu_before + redis_cpu(self.client) - redis_before
            out[name] = (self.events / seconds, 1e6 * cpu / self.events)
        return out


def split_singles(batches: Sequence[Batch]) -> list[Batch]:
    return [[event] for batch in batches for event in batch]


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def verdict(values: list[float], target: float) -> str:
    return f"target >= {target:g}: {'met' if statistics.median(values) >= target else 'MISSED'}"


def bench_writes(client: redis.Redis, prefix: str, batches: list[Batch], args: argparse.Namespace) -> None:
    singles = split_singles(batches)[: args.events]
    for clients in (1, args.clients):
        for shape, data, baseline in (
            ("1 event/append", singles, "raw"),
            ("per command", batches, "raw pipelined"),
        ):
            bench = WriteBench(client, prefix, data, clients)
            rounds = [bench.round() for _ in range(args.rounds)]
            ratios = [r["ours"][0] / r[baseline][0] for r in rounds]
            costs = [r[baseline][1] / r["ours"][1] for r in rounds]
            target = f"   {verdict(ratios, 0.70)}" if shape == "1 event/append" else ""
            print(
                f"append, {clients} client(s), {shape:<15} ours {spread([r['ours'][0] for r in rounds])} ev/s, "
                f"{baseline} {spread([r[baseline][0] for r in rounds])} ev/s; ratio {spread(ratios)}{target}\n"
                f"    CPU per event (client + Redis): ours {spread([r['ours'][1] for r in rounds])} µs, "
                f"{baseline} {spread([r[baseline][1] for r in rounds])} µs; {baseline}/ours {spread(costs)}"
            )


def bench_reads(client: redis.Redis, prefix: str, batches: list[Batch], rounds: int) -> None:
    store = RedisEventStore(client, prefix=prefix)
    bench = WriteBench(client, prefix, batches, 1)
    bench.ours(0)
    game_id, version = bench.games[0].id, bench.versions[0]
    key = store.keys(game_id).events

    def raw() -> Any:
        """The stream in the store's chunks, every event decoded and kept."""
        kept: list[Any] = []
        start = "-"
        while True:
            entries: list[tuple[bytes, dict[bytes, bytes]]] = client.xrange(  # type: ignore[assignment]
                key, start, "+", count=defaults.READ_CHUNK
            )
            kept.extend(json.loads(fields[b"e"]) for _, fields in entries)
            if len(entries) < defaults.READ_CHUNK:
                return kept
            start = f"{kept[-1]['version'] + 1}-0"

    runs: dict[str, Callable[[], Any]] = {
        "raw": raw,
        "ours admin": lambda: store.read_all(game_id, ADMIN),
        "ours seat": lambda: store.read_all(game_id, 1),
    }
    rates: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, fn in runs.items():
            start = time.perf_counter()
            assert len(fn()) == version
            rates[name].append(version / (time.perf_counter() - start))
    for name in ("ours admin", "ours seat"):
        ratios = [o / r for o, r in zip(rates[name], rates["raw"], strict=True)]
        print(
            f"replay {version} events, {name:<10} {spread(rates[name])} ev/s, raw chunked read "
            f"{spread(rates['raw'])} ev/s; ratio {spread(ratios)}"
        )


def xadd_pipelined(client: redis.Redis, key: str, payloads: Sequence[str | bytes]) -> None:
    """One batch as raw XADDs in one pipeline: one round trip, like our one APPEND."""
    pipe = client.pipeline(transaction=False)
    for payload in payloads:
        pipe.xadd(key, {"e": payload})
    pipe.execute()


def raw_records(client: redis.Redis, key: str, batches: Sequence[Sequence[Record]]) -> None:
    """The floor of the durable runs: each batch's records as pipelined XADDs (one round
    trip, one fsync'd write), encoded as the SQLite baseline encodes them."""
    for batch in batches:
        xadd_pipelined(client, key, [encode(state) for _, state in batch])


def durable_round(
    client: redis.Redis, baseline: Any, bench: WriteBench, tag: str, first: int
) -> dict[str, float]:
    """Events/s of each side of one durable round, the sides taking their turn from the
    ``first``-th on (who goes first rotates between rounds: a disk's fsync latency drifts
    within a round): ours; eventsourcing+SQLite (``baseline``) storing the same records
    (``theirs``) and the bare events; the floor, raw pipelined XADDs of the same records."""
    same = stored_records(bench.shares, [game.id for game in bench.games])
    bare: list[list[list[Record]]] = [
        [[(event.type, event.to_json()) for event in batch] for batch in share]
        for share in bench.shares
    ]

    def raw(i: int) -> None:
        raw_records(client, f"{bench.prefix}raw:{tag}:{i}", same[i])

    sides: dict[str, Callable[[], float]] = {
        "theirs": lambda: baseline.rate(same, f"same-{tag}"),
        "theirs, bare events": lambda: baseline.rate(bare, f"bare-{tag}"),
        "ours": lambda: bench.events / run_clients(bench.clients, bench.ours),
        # The floor: the same records as raw pipelined XADDs on the same server, one
        # round trip and one fsync'd write each -- what any store on it pays.
        "raw": lambda: bench.events / run_clients(bench.clients, raw),
    }
    names = list(sides)
    shift = first % len(names)
    return {name: sides[name]() for name in names[shift:] + names[:shift]}


def bench_durability(batches: list[Batch], args: argparse.Namespace) -> None:
    """Ours on Redis with ``appendfsync always`` against eventsourcing + SQLite (fsync
    per commit), each command's events one append / one transaction, both storing the
    same records (:func:`stored_records`); and SQLite storing the engine's bare events,
    the baseline of the rounds before the sixteenth, for comparison."""
    try:
        from bench.sqlite_baseline import SqliteBaseline
    except ImportError:
        print("matched durability: skipped (pip install -e '.[bench]' for eventsourcing)")
        return
    data = batches[: args.durable_batches]
    events = sum(map(len, data))
    with (
        tempfile.TemporaryDirectory(prefix="tt-store-bench-", dir=args.disk) as tmp,
        RedisServer(
            binary=args.redis_server, directory=Path(tmp) / "redis",
            config={"appendonly": "yes", "appendfsync": "always"},
        ) as server,
    ):
        client = redis.Redis.from_url(server.url, max_connections=64)
        baseline = SqliteBaseline(Path(tmp) / "events.sqlite")
        print(f"matched durability ({events} events in {len(data)} commands; SQLite "
              f"journal {baseline.journal_mode}, synchronous {baseline.synchronous}; Redis AOF always)")
        for clients, target in ((1, 1.0), (args.clients, 2.0)):
            rates: dict[str, list[float]] = {}
            for round_number in range(args.durable_rounds):
                bench = WriteBench(client, "bench:", data, clients)
                rate = durable_round(client, baseline, bench, f"{clients}-{round_number}", round_number)
                for name, value in rate.items():
                    rates.setdefault(name, []).append(value)
            ours, theirs, bare_rates = rates["ours"], rates["theirs"], rates["theirs, bare events"]
            ratios = [o / t for o, t in zip(ours, theirs, strict=True)]
            print(
                f"  {clients} client(s): ours {spread(ours)} ev/s, eventsourcing+SQLite storing "
                f"the same records {spread(theirs)} ev/s; ratio {spread(ratios)}   "
                f"{verdict(ratios, target)}\n"
                f"    the floor, raw pipelined XADD of the same records on the same Redis / "
                f"eventsourcing+SQLite: {spread([r / t for r, t in zip(rates['raw'], theirs, strict=True)])}\n"
                f"    eventsourcing+SQLite storing the engine's bare events (no envelope) "
                f"{spread(bare_rates)} ev/s; ours / that {spread([o / t for o, t in zip(ours, bare_rates, strict=True)])}, "
                f"the floor / that {spread([r / t for r, t in zip(rates['raw'], bare_rates, strict=True)])}"
            )
        baseline.close()
        client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", help="use this server (keys under a fresh prefix)")
    parser.add_argument("--redis-server", help="redis-server binary for the throwaway servers")
    parser.add_argument("--events", type=int, default=3000, help="events per write round")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients")
    parser.add_argument("--rounds", type=int, default=5, help="paired rounds")
    parser.add_argument("--no-durability", action="store_true", help="skip the matched-durability runs")
    parser.add_argument("--durable-batches", type=int, default=1000, help="commands per durable round")
    parser.add_argument("--durable-rounds", type=int, default=8, help="durable rounds (who goes first rotates)")
    parser.add_argument("--disk", help="directory on the disk to fsync to (default: the temp dir)")
    args = parser.parse_args()
    with redis_target(args.redis_url, args.redis_server, max_connections=64) as (client, url, prefix):
        print(f"redis {server_info(client, 'server')['redis_version']} at {url}; median (min-max) of {args.rounds} rounds")
        batches = sample_batches(args.events)
        print(f"{sum(map(len, batches))} events in {len(batches)} command batches")
        bench_writes(client, prefix, batches, args)
        bench_reads(client, prefix, batches, args.rounds * 4)
        if not args.no_durability:
            bench_durability(batches, args)


if __name__ == "__main__":
    main()
