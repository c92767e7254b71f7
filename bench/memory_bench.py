"""Redis memory per finished game: the keys of one game after it ended.

Plays ``--games`` random games of each type and player count through the real
application layer (store, snapshots, seed reveal) on a throwaway Redis, then sums
``MEMORY USAGE`` over each game's keys, beside ``INFO memory``'s growth per game
as the in-run baseline (it includes allocator overhead the per-key figure misses).

    .venv/bin/python -m bench.memory_bench [--games 10]
"""

from __future__ import annotations

import argparse

import redis

from engine.registry import game_names, get_game
from engine.rng import SeededRandom
from events.redis_server import RedisServer
from events.redis_store import RedisEventStore
from service.app.application import Application


def play_one(app: Application, name: str, players: int, seed: bytes) -> str:
    """A full random game through the application; returns its id."""
    game_id = app.create_game(name, {}, [None] * players)["game_id"]
    tokens = [app.join(game_id, f"p{i}").token for i in range(players)]
    pick = SeededRandom(seed, "memory-bench")
    for step in range(100_000):
        view = app.queries.view(game_id, None)
        if view["status"] == "finished":
            return game_id
        seat = int(min(view["to_act"], key=int))
        legal = app.queries.legal(game_id, seat)["commands"]
        app.submit(game_id, tokens[seat], legal[pick.randbelow(len(legal), f"s{step}")], view["version"])
    raise RuntimeError("game did not end")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10)
    args = parser.parse_args()
    with RedisServer() as server:
        client = redis.Redis.from_url(server.url)
        app = Application(RedisEventStore(client, prefix="mem:"))
        print(f"{'game':<11}{'players':>8}{'events':>8}{'keys bytes/game':>17}{'INFO growth/game':>18}")
        for name in game_names():
            for players in range(get_game(name).min_players, get_game(name).max_players + 1):
                before = client.info("memory")["used_memory"]
                ids = [play_one(app, name, players, f"{name}{players}:{k}".encode()) for k in range(args.games)]
                grown = (client.info("memory")["used_memory"] - before) / args.games
                per_key = sum(
                    client.memory_usage(key) or 0 for gid in ids for key in client.scan_iter(match=f"mem:game:{{{gid}}}:*")
                ) / args.games
                events = sum(app.store.head(gid).version for gid in ids) / args.games
                print(f"{name:<11}{players:>8}{events:>8.0f}{per_key:>17,.0f}{grown:>18,.0f}")


if __name__ == "__main__":
    main()
