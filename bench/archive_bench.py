"""The archive of finished games: Redis memory per finished game before and after
archiving, archive bytes per game, and an archived export's latency against a live one.

Plays ``--games`` random games of each type at two players through the real application
layer on a throwaway Redis, as ``bench.memory_bench`` does (the last seat a ``random``
bot, every command sent with an idempotency key, records kept -- i.e. before their TTL),
then projects each game (view + summary: what the projector keeps). Measured:

- ``Redis before``: ``MEMORY USAGE`` summed over the game's keys (stream, head, idem,
  seed, snapshot, view, summary) -- and ``INFO used_memory`` per game;
- ``Redis after``: the same once ``tabletop archive``'s move ran (summary only left), and
  ``INFO used_memory``'s drop per game;
- ``archive bytes``: the SQLite file's size per game (after a WAL checkpoint);
- export latency: ``GET /v1/games/{id}/export`` (admin, the whole history) through the
  Flask app on the same services, ``--requests`` times per game, live (Redis) then
  archived (SQLite, or ``--archive-url``), median and p99.

    .venv/bin/python -m bench.archive_bench [--games 5] [--requests 40] [--archive-url URL]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import redis

from bench.memory_bench import PREFIX, game_bytes, play_one
from bench.redis_target import server_info
from events.projections import ReadModels, Updater
from events.redis_adapter.server import RedisServer
from service.app.archiving import archive_game
from service.bootstrap import build
from service.http import create_app
from service.settings import Settings

ADMIN = "bench-admin-token-0123456789abcdef"


def latencies(client: object, paths: list[str], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        for path in paths:
            started = time.perf_counter()
            reply = client.get(path, headers={"Authorization": f"Bearer {ADMIN}"})  # type: ignore[attr-defined]
            out.append(time.perf_counter() - started)
            assert reply.status_code == 200, reply.data[:300]
    return out


def p(values: list[float], q: float) -> float:
    return sorted(values)[min(len(values) - 1, int(q * len(values)))] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--archive-url", help="default: a SQLite file in a temporary directory")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="tabletop-archive-bench-"))
    sqlite_file = tmp / "archive.sqlite3"
    url = args.archive_url or f"sqlite:///{sqlite_file}"
    with RedisServer() as server:
        client = redis.Redis.from_url(server.url)
        settings = Settings(
            redis_url=server.url, key_prefix=PREFIX, admin_token=ADMIN, archive_url=url,
            rate_limit_per_minute=0, replay_limit_per_minute=0,
        )
        svc = build(settings, client=client)
        app = svc.app
        http = create_app(services=svc).test_client()
        updater = Updater(svc.store, ReadModels(client, PREFIX))
        print(f"archive: {svc.store.archive.url if svc.store.archive else '-'}")
        header = ("game", "events", "Redis before", "Redis after", "INFO before", "INFO freed", "archive bytes",
                  "live p50 ms", "live p99 ms", "arch p50 ms", "arch p99 ms")
        print(f"{header[0]:<11}{header[1]:>7}" + "".join(f"{h:>14}" for h in header[2:]))
        for name in ("schlitzohr", "abluxxen"):
            before_info = server_info(client, "memory")["used_memory"]
            ids = [play_one(app, client, name, 2, f"archive-{name}:{k}".encode()) for k in range(args.games)]
            for gid in ids:
                client.delete(f"{PREFIX}old:{{{gid}}}")  # memory_bench's shadow records
                updater.rebuild(gid)
            n = len(ids)
            grown = (server_info(client, "memory")["used_memory"] - before_info) / n
            redis_before = sum(game_bytes(client, gid) for gid in ids) / n
            events = sum(svc.store.head(gid).version for gid in ids) / n
            paths = [f"/v1/games/{gid}/export" for gid in ids]
            latencies(http, paths, 2)  # warm up
            live = latencies(http, paths, args.requests // n or 1)
            size_before = _archive_size(sqlite_file)
            info_before = server_info(client, "memory")["used_memory"]
            archive = svc.store.archive.store()  # type: ignore[union-attr]
            for gid in ids:
                archive_game(client, archive, PREFIX, gid)
            freed = (info_before - server_info(client, "memory")["used_memory"]) / n
            redis_after = sum(game_bytes(client, gid) for gid in ids) / n
            archive_bytes = (_archive_size(sqlite_file) - size_before) / n if not args.archive_url else float("nan")
            latencies(http, paths, 2)
            archived = latencies(http, paths, args.requests // n or 1)
            print(
                f"{name:<11}{events:>7.0f}{redis_before:>14,.0f}{redis_after:>14,.0f}{grown:>14,.0f}{freed:>14,.0f}"
                f"{archive_bytes:>14,.0f}{p(live, .5):>14.2f}{p(live, .99):>14.2f}"
                f"{p(archived, .5):>14.2f}{p(archived, .99):>14.2f}"
            )
        svc.store.archive.close()  # type: ignore[union-attr]


def _archive_size(path: Path) -> int:
    """The SQLite file's size with its WAL folded in (0 before it exists)."""
    if not path.exists():
        return 0
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return os.path.getsize(path)


if __name__ == "__main__":
    main()
