"""Event-store throughput against raw Redis, in one run on one server.

    .venv/bin/python bench/store_bench.py [--redis-url URL | --redis-server BINARY]

Measures, in events per second (best of several interleaved rounds, so that load
from other processes hits both sides alike):
- writes: raw ``XADD`` vs ``RedisEventStore.append``, with one client and with
  several concurrent clients (threads, one game each), in two shapes:
  ``1 event/append`` (the worst case for us: one Lua call per event) and
  ``per command`` (each append is the batch one command of a real game produced;
  raw XADDs those events one by one, and -- fairer still -- as one pipeline);
- replay: raw ``XRANGE`` + ``json.loads`` vs ``read_all`` (decode, upcast,
  envelopes) for the admin and for a seat (with redaction).
Targets: append >= 70 % of raw XADD; replay >= 50 % of raw XRANGE + decode.
Without ``--redis-url`` a throwaway redis-server is started; with one, only keys
under a fresh ``bench:<id>:`` prefix are written, and deleted afterwards.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import redis

from engine.model import Event
from engine.playout import play
from engine.registry import get_game
from events import records
from events.envelope import SYSTEM, seat_actor
from events.port import GameRef
from events.redaction import ADMIN
from events.redis_server import RedisServer
from events.redis_store import RedisEventStore

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
                pipe = client.pipeline(transaction=False)
                for payload in payloads:
                    pipe.xadd(key, {"e": payload})
                pipe.execute()
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

    def rates(self, rounds: int) -> dict[str, float]:
        best: dict[str, float] = {}
        runs: dict[str, Callable[[int], None]] = {
            "raw": lambda i: self.raw(i, False),
            "raw pipelined": lambda i: self.raw(i, True),
            "ours": self.ours,
        }
        for _ in range(rounds):
            for name, work in runs.items():
                rate = self.events / run_clients(self.clients, work)
                best[name] = max(best.get(name, 0.0), rate)
        return best


def split_singles(batches: Sequence[Batch]) -> list[Batch]:
    return [[event] for batch in batches for event in batch]


def bench_reads(
    client: redis.Redis, prefix: str, batches: list[Batch], rounds: int
) -> dict[str, float]:
    store = RedisEventStore(client, prefix=prefix)
    bench = WriteBench(client, prefix, batches, 1)
    bench.ours(0)
    game_id, version = bench.games[0].id, bench.versions[0]
    key = store.keys(game_id).events

    def raw() -> Any:
        entries: list[tuple[bytes, dict[bytes, bytes]]] = client.xrange(key, "-", "+")  # type: ignore[assignment]
        return [json.loads(fields[b"e"]) for _, fields in entries]

    runs: dict[str, Callable[[], Any]] = {
        "raw": raw,
        "ours admin": lambda: store.read_all(game_id, ADMIN),
        "ours seat": lambda: store.read_all(game_id, 1),
    }
    best: dict[str, float] = {}
    for _ in range(rounds):
        for name, fn in runs.items():
            start = time.perf_counter()
            fn()
            best[name] = max(best.get(name, 0.0), version / (time.perf_counter() - start))
    return best


def report(title: str, rates: dict[str, float], target: float) -> None:
    raw = rates.pop("raw")
    print(f"{title}: raw {raw:,.0f} ev/s")
    for name, rate in rates.items():
        verdict = "ok" if rate / raw >= target else "MISSED"
        share = f"{rate / raw:6.1%} of raw (target {target:.0%}: {verdict})"
        print(f"  {name:<14} {rate:>10,.0f} ev/s  = {share}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", help="use this server (keys under a fresh prefix)")
    parser.add_argument("--redis-server", help="redis-server binary for the throwaway server")
    parser.add_argument("--events", type=int, default=3000, help="events per write round")
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (best counts)")
    args = parser.parse_args()
    server = None if args.redis_url else RedisServer(binary=args.redis_server).start()
    url = args.redis_url or server.url  # type: ignore[union-attr]
    client = redis.Redis.from_url(url, max_connections=64)
    prefix = f"bench:{uuid.uuid4().hex[:8]}:"
    try:
        print(f"redis {client.info('server')['redis_version']} at {url}")
        batches = sample_batches(args.events)
        singles = split_singles(batches)[: args.events]
        print(f"{sum(map(len, batches))} events in {len(batches)} command batches")
        for clients in (1, args.clients):
            for shape, data in (("1 event/append", singles), ("per command", batches)):
                rates = WriteBench(client, prefix, data, clients).rates(args.rounds)
                report(f"append, {clients} client(s), {shape}", rates, 0.70)
        report("replay", bench_reads(client, prefix, batches, args.rounds * 4), 0.50)
    finally:
        for key in client.scan_iter(match=prefix + "*", count=1000):
            client.unlink(key)
        client.close()
        if server is not None:
            server.close()


if __name__ == "__main__":
    main()
