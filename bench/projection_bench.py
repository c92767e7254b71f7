"""Projection throughput against plain replays of the same events, in one run on one server.

    .venv/bin/python -m bench.projection_bench [--redis-url URL] [--games N] [--rounds R]

Writes N finished random games (half Schlitzohr, half Abluxxen, 2-4 seats, stored
the way the application stores them) under a fresh prefix, then measures, in
events per second (best of R interleaved rounds, so load from other processes hits
every side alike):

- ``replay``: ``read_all`` as ADMIN of every game (the store's raw replay; baseline);
- ``replay + fold``: the same plus folding each history into a table (engine only);
- ``rebuild``: ``tabletop projections rebuild`` -- delete every read model, discover
  the games by SCAN, fold, write views, summaries, lobby and totals;
- ``live``: the projector's per-command path: after each command batch, one
  ``Updater.update`` (load checkpoint + table, read the new events, fold, write).
  Only the updates are timed, not the appends.

Without ``--redis-url`` a throwaway redis-server is started; with one, only keys
under a fresh ``bench:<id>:`` prefix are written, and deleted afterwards.
"""

from __future__ import annotations

import argparse
import time
import uuid
from collections.abc import Callable
from typing import Any

import redis

from bench.redis_target import redis_target, server_info
from engine.model import Event
from engine.playout import play
from engine.registry import get_game
from engine.table import game_started, seat_taken
from events.model import records
from events.model.envelope import SYSTEM, seat_actor
from events.model.port import GameRef
from events.model.redaction import ADMIN
from events.projections import ReadModels, Updater, rebuild
from events.projections.model import fold
from events.redis_adapter.store import RedisEventStore

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve")
Batches = list[tuple[int, dict[str, Any], list[Event]]]


def game_batches(name: str, players: int, seed: str) -> tuple[list[Event], Batches]:
    """The creation batch and the command batches of one random game."""
    game = get_game(name)
    steps: Batches = []
    play(
        game,
        players,
        bytes.fromhex(seed),
        on_step=lambda s, seat, c, new: steps.append((seat, c, new)),
    )
    created = records.setup_events(game, game.validate_options(None), players, seed)
    created += [seat_taken(i, NAMES[i]) for i in range(players)] + [game_started()]
    return created, steps


def write_games(store: RedisEventStore, count: int, on_batch: Callable[[str], None]) -> int:
    """Write ``count`` finished games; ``on_batch(game_id)`` after each append. Events written."""
    events = 0
    for k in range(count):
        name, players = ("schlitzohr", "abluxxen")[k % 2], 2 + k % 3
        seed, game_id = records.new_seed(), f"b{k}-{uuid.uuid4().hex[:6]}"
        created, steps = game_batches(name, players, seed)
        ref = GameRef(game_id, name)
        version = store.create(ref, created, seed, actor=SYSTEM).last_version
        on_batch(game_id)
        for seat, command, new in steps:
            version = store.append(
                ref, new, version, actor=seat_actor(seat), command=dict(command)
            ).last_version
            on_batch(game_id)
        version = store.append(
            ref, [records.seed_revealed(seed)], version, actor=SYSTEM
        ).last_version
        on_batch(game_id)
        events += version
    return events


class LiveTimer:
    """Times ``Updater.update`` after each append, excluding the appends themselves."""

    def __init__(self, updater: Updater) -> None:
        self.updater, self.seconds, self.updates = updater, 0.0, 0

    def __call__(self, game_id: str) -> None:
        start = time.perf_counter()
        self.updater.update(game_id)
        self.seconds += time.perf_counter() - start
        self.updates += 1


def measure(client: redis.Redis, prefix: str, games: int, rounds: int) -> None:
    store = RedisEventStore(client, prefix=prefix)
    updater = Updater(store, ReadModels(client, prefix))
    live = LiveTimer(updater)
    events = write_games(store, games, live)
    ids = sorted(
        {
            key.decode().split("{")[1].split("}")[0]
            for key in client.scan_iter(match=prefix + "game:{*}:head")
        }
    )
    print(f"{games} games, {events} events, {live.updates} command batches")

    def replay() -> None:
        for game_id in ids:
            store.read_all(game_id, ADMIN)

    def replay_fold() -> None:
        for game_id in ids:
            fold(game_id, None, store.read_all(game_id, ADMIN))

    runs: dict[str, Callable[[], Any]] = {
        "replay": replay,
        "replay + fold": replay_fold,
        "rebuild": lambda: rebuild(updater, client),
    }
    best: dict[str, float] = {}
    for _ in range(rounds):
        for label, run in runs.items():
            start = time.perf_counter()
            run()
            best[label] = max(best.get(label, 0.0), events / (time.perf_counter() - start))
    best["live (per command)"] = events / live.seconds
    base = best["replay"]
    for label, rate in best.items():
        print(f"  {label:<20} {rate:>10,.0f} ev/s  = {rate / base:6.1%} of replay")
    print(
        f"  live: {live.updates / live.seconds:,.0f} updates/s ({live.seconds / live.updates * 1e3:.2f} ms each)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", help="use this server (keys under a fresh prefix)")
    parser.add_argument("--games", type=int, default=40, help="finished games to write")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (best counts)")
    args = parser.parse_args()
    with redis_target(args.redis_url) as (client, url, prefix):
        print(f"redis {server_info(client, 'server')['redis_version']} at {url}")
        measure(client, prefix, args.games, args.rounds)


if __name__ == "__main__":
    main()
