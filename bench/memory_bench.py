"""Redis memory per finished game -- with bots and idempotency keys -- before and after
slim records and their expiry.

Plays ``--games`` random games of each type and player count through the real
application layer (store, snapshots, seed reveal) on a throwaway Redis: the last seat
is a ``random`` bot (its turns submitted as the bot worker does, with the bot's key),
the people send an ``Idempotency-Key`` with every command, as the docs recommend.
Then sums ``MEMORY USAGE`` over each game's keys, three ways:

- ``old records``: each record rewritten as it was stored before slim records (the
  same fields plus ``response``, the command's full answer) and never expiring;
- ``slim records``: as stored now, while the records live (``TABLETOP_IDEMPOTENCY_TTL_S``
  after the end, default a day);
- ``after TTL``: once the records expired (the game's ``idem`` hash gone).

``INFO growth`` is ``used_memory``'s growth per game in the run (slim records, before
the TTL; it includes allocator overhead the per-key figure misses). Not counted:
read models (views, lobby: the projector's, about the same for every variant) and
RQ's bot job hashes (kept ``BOT_RESULT_TTL`` = 2 minutes).

    .venv/bin/python -m bench.memory_bench [--games 5]
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import redis

from engine import ai
from engine.registry import game_names, get_game
from engine.rng import SeededRandom
from events.redis_adapter.keys import GameKeys
from events.redis_adapter.server import RedisServer
from events.redis_adapter.store import RedisEventStore
from service.app.application import Application
from service.app.notify import bot_idempotency_key
from service.app.retries import scoped_key

PREFIX = "mem:"


def play_one(app: Application, client: Any, name: str, players: int, seed: bytes) -> str:
    """A full random game (last seat a bot), every command keyed; returns its id. Each
    record is also written in the old format to a shadow hash (for the comparison)."""
    seats: list[str | None] = [None] * (players - 1) + ["random"]
    game_id = app.create_game(name, {}, seats)["game_id"]
    tokens = [app.join(game_id, f"p{i}").token for i in range(players - 1)]
    pick = SeededRandom(seed, "memory-bench")
    idem = GameKeys.of(PREFIX, game_id).idempotency
    for step in range(100_000):
        view = app.queries.view(game_id, None)
        if view["status"] == "finished":
            return game_id
        seat = int(min(view["to_act"], key=int))
        legal = app.queries.legal(game_id, seat)["commands"]
        version = view["version"]
        if seat == players - 1:
            state = app.queries.view(game_id, seat)["state"]
            command = ai.choose(name, "random", state, legal, pick)
            key = bot_idempotency_key(game_id, version, seat)
            outcome = app.submit_as_bot(game_id, seat, command, version, key)
            stored = scoped_key({"kind": "bot", "seat": seat}, key)
            text = json.dumps(outcome, separators=(",", ":"), ensure_ascii=False)
        else:
            command = legal[pick.randbelow(len(legal), f"s{step}")]
            key = f"client-key-{step:08d}-{seed.hex()[:16]}"  # a client's UUID-sized key
            result = app.submit_outcome(game_id, tokens[seat], command, version, key)
            stored = scoped_key({"kind": "seat", "seat": seat}, key)
            text = result.text
        record = json.loads(client.hget(idem, stored))
        client.hset(f"{PREFIX}old:{{{game_id}}}", stored, json.dumps({**record, "response": text}))
    raise RuntimeError("game did not end")


def game_bytes(client: Any, game_id: str, *, skip: str = "") -> int:
    """``MEMORY USAGE`` summed over the game's store keys (all but ``skip``)."""
    return sum(
        client.memory_usage(key) or 0
        for key in client.scan_iter(match=f"{PREFIX}game:{{{game_id}}}:*")
        if key.decode() != skip
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    args = parser.parse_args()
    with RedisServer() as server:
        # Any, as in the packages: redis-py's hints make every reply maybe-async.
        client: Any = redis.Redis.from_url(server.url)
        app = Application(RedisEventStore(client, prefix=PREFIX))
        header = ("game", "players", "events", "keyed", "old records", "slim records", "after TTL", "INFO growth")
        print(f"{header[0]:<11}{header[1]:>8}{header[2]:>8}{header[3]:>7}" + "".join(f"{h:>14}" for h in header[4:]))
        for name in game_names():
            for players in range(get_game(name).min_players, get_game(name).max_players + 1):
                before = client.info("memory")["used_memory"]
                ids = []
                shadow = 0
                for k in range(args.games):
                    ids.append(play_one(app, client, name, players, f"{name}{players}:{k}".encode()))
                    old = f"{PREFIX}old:{{{ids[-1]}}}"
                    shadow += client.memory_usage(old) or 0
                    client.delete(old)  # out of INFO growth
                n = args.games
                grown = (client.info("memory")["used_memory"] - before) / n
                slim = sum(game_bytes(client, gid) for gid in ids) / n
                idem = [GameKeys.of(PREFIX, gid).idempotency for gid in ids]
                no_idem = sum(game_bytes(client, gid, skip=key) for gid, key in zip(ids, idem, strict=True)) / n
                assert all(0 < client.ttl(key) for key in idem)  # set with the end
                keyed = sum(client.hlen(key) for key in idem) / n
                events = sum(app.store.head(gid).version for gid in ids) / n
                old_total = no_idem + shadow / n
                print(
                    f"{name:<11}{players:>8}{events:>8.0f}{keyed:>7.0f}"
                    f"{old_total:>14,.0f}{slim:>14,.0f}{no_idem:>14,.0f}{grown:>14,.0f}"
                )


if __name__ == "__main__":
    main()
