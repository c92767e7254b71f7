"""What relaying one live event costs a worker: our stream path against a bare gevent relay.

    .venv/bin/python -m bench.stream_relay_bench [--games 8] [--seconds 4] [--rounds 3]

Why: with an event stream open on every game the protocol bench's C=8 ratio sits at
0.71-0.76 of bare, without streams at 0.87 (``docs/operations.md``, issue #16). This
bounds how much of that the stream path's own code could still give back: what is left
when a relay does nothing but wake and write is gevent's, the kernel's and Redis's.

One throwaway Redis. This process creates ``--games`` games and appends to them as the
service does (``RedisEventStore.append``: the ``APPEND`` script publishes each append on
the game's live channel), one append at a time, 1 ms apart, so that each reaches the
relay alone, as in the protocol bench. A child process (``bench.stream_relay_child``,
gevent-patched like the API workers) follows every game and writes what it relays to
one TCP connection per game, which threads of this process drain. The relays take turns
in each round:

- ``bare``: one subscriber socket, a gevent ``Event`` per game and a greenlet per game
  that writes each published text as an SSE data line -- no epochs, no gap check,
  nothing redacted: the floor of a gevent pub/sub relay;
- ``hub``: ``service.http.live``'s hub and ``Subscription.wait_entries`` (epochs, the
  recent entries, the timeouts), the entries written as handed over;
- ``ours``: the hub and ``service.http.sse.event_stream`` for a seat -- decode, redact,
  encode, SSE framing: what a game's event stream runs. Werkzeug's and gunicorn's
  iteration of the body (the same for any relay) is not part of any of them.

Reports the child's CPU per event relayed (user + system, as the kernel accounted it),
median (min-max) over the rounds, and each relay's extra over ``bare``.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import redis

from bench.store_bench import Batch, WriteBench, sample_batches
from events.model.envelope import seat_actor
from events.redis_adapter.server import RedisServer

RELAYS = ("bare", "hub", "ours")
PREFIX = "benchrelay:"
PACE_S = 0.001
ROOT = Path(__file__).resolve().parent.parent


def drained_sink() -> int:
    """A port whose every connection is read to the end by a thread of its own."""
    listener = socket.create_server(("127.0.0.1", 0))

    def drain(conn: socket.socket) -> None:
        while conn.recv(65536):
            pass

    def accept() -> None:
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=drain, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    return int(listener.getsockname()[1])


def one_run(
    relay: str, server: RedisServer, client: redis.Redis, sink_port: int,
    batches: list[Batch], games: int, seconds: float,
) -> dict[str, float]:
    """One relay's turn, on ``games`` new games (``WriteBench``'s): its CPU (µs per
    event) and how many events it relayed of those appended."""
    bench = WriteBench(client, PREFIX, batches, games)
    store, refs = bench.store, bench.games
    child = subprocess.Popen(
        [sys.executable, "-m", "bench.stream_relay_child", relay, str(server.port),
         str(sink_port), PREFIX, *(r.id for r in refs)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )
    try:
        assert child.stdin is not None and child.stdout is not None
        if child.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the {relay} relay did not start")
        child.stdin.write("start\n")
        child.stdin.flush()
        versions, appended, k = bench.versions, 0, 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            i, batch = k % games, batches[k % len(batches)]
            result = store.append(refs[i], batch, versions[i], actor=seat_actor(0),
                                  command={"kind": "roll"})
            versions[i], appended, k = result.last_version, appended + len(batch), k + 1
            time.sleep(PACE_S)
        time.sleep(0.3)  # the last events reach the sinks
        child.stdin.write("stop\n")
        child.stdin.flush()
        report = json.loads(child.stdout.readline())
    finally:
        child.kill()
        child.wait()
    events = max(report["events"], 1)
    cpu_us = 1e6 * (report["user_s"] + report["system_s"]) / events
    return {"cpu_us": cpu_us, "relayed": report["events"] / appended}


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ({min(values):.1f}-{max(values):.1f})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=8, help="games followed (one stream each)")
    parser.add_argument("--seconds", type=float, default=4.0, help="appending time per run")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (each runs every relay)")
    args = parser.parse_args(argv)
    batches = sample_batches(3_000)  # cycled: the store checks schemas and chains, not rules
    runs: dict[str, list[dict[str, float]]] = {relay: [] for relay in RELAYS}
    with RedisServer() as server:
        client, sink_port = server.client(), drained_sink()
        for round_ in range(args.rounds):
            order = RELAYS[round_ % 3:] + RELAYS[: round_ % 3]  # who goes first rotates
            for relay in order:
                run = one_run(
                    relay, server, client, sink_port, batches, args.games, args.seconds
                )
                runs[relay].append(run)
                print(f"round {round_ + 1} {relay}: {run['cpu_us']:.1f} µs/event, "
                      f"relayed {100 * run['relayed']:.0f} %", flush=True)
    floor = [r["cpu_us"] for r in runs["bare"]]
    print(f"\n{args.games} games, one append every {PACE_S * 1000:g} ms, {args.seconds:g} s "
          f"per run, {args.rounds} rounds; relay CPU per event (user + system), median (min-max)")
    for relay in RELAYS:
        cpu = [r["cpu_us"] for r in runs[relay]]
        extra = [c - f for c, f in zip(cpu, floor, strict=True)]
        print(f"  {relay:5} {spread(cpu):>24} µs   over bare {spread(extra):>22} µs   "
              f"relayed {spread([100 * r['relayed'] for r in runs[relay]])} %")
    short = [r for relay in RELAYS for r in runs[relay] if r["relayed"] < 0.99]
    return 1 if short else 0  # a relay that lost events would flatter itself


if __name__ == "__main__":
    sys.exit(main())
