"""The player stream: how long after a command a player hears that it is to move, and
what a notice costs.

    .venv/bin/python -m bench.player_stream_bench [--games N] [--moves M]

Starts a throwaway redis-server, the application (as the API builds it) and a
projector (``workers.projector.Projector.run``, its per-shard threads) in this
process. A registered player sits at seat 0 of N two-seat Schlitzohr games, a guest
(driven by the bench) at seat 1. Round-robin over the games, for M moves of the
guest in all: the guest moves; if that hands the turn to the player, the bench
waits on the account's notice stream (``XREAD BLOCK``) for the ``your_turn`` notice
of that version and records the delay since the guest's command returned; then the
player moves (with its player key) so the game goes on.

Reports: delay percentiles (command answered -> notice readable), notices per
command, mean notice size (bytes of JSON, the SSE ``data:`` line) and Redis memory
per kept notice (``MEMORY USAGE`` of the stream / its length). Also the command
latency of games with an account seat against games without one (the command path
does no account work: the two should match within noise).
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from typing import Any

from engine.registry import get_game
from events.accounts.keys import AccountKeys
from events.redis_adapter.server import RedisServer
from service.bootstrap import build
from service.settings import Settings
from workers.projector import Projector

PREFIX = "bench:"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--moves", type=int, default=400)
    args = parser.parse_args(argv)
    server = RedisServer().start()
    stop = threading.Event()
    thread: threading.Thread | None = None
    try:
        services = build(Settings(redis_url=server.url, key_prefix=PREFIX, max_open_games_per_client=0, max_unfinished_games_per_client=0))
        app, client = services.app, services.redis
        projector = Projector(client, PREFIX, shards=4, consumer="bench", block_ms=1000)
        thread = threading.Thread(target=projector.run, args=(stop,), daemon=True)
        thread.start()
        assert app.accounts is not None
        registered = app.accounts.register("bench")
        key = registered.player_key
        notices = AccountKeys.of(PREFIX, registered.account.account_id).notices
        games = []
        for _ in range(args.games):
            game_id = app.create_game("schlitzohr", {}, [None, None])["game_id"]
            app.join(game_id, None, None, registered.account)
            guest = app.join(game_id, "guest", None).token
            games.append((game_id, guest))
        plain = []
        for _ in range(args.games):
            game_id = app.create_game("schlitzohr", {}, [None, None])["game_id"]
            tokens = [app.join(game_id, f"p{s}", None).token for s in range(2)]
            plain.append((game_id, tokens))
        delays, with_account, without = [], [], []
        last_id = "0-0"
        moves = 0
        commands = 0
        while moves < args.moves:
            progressed = False
            for (game_id, guest), (plain_id, tokens) in zip(games, plain, strict=True):
                seat, table = _to_act(app, game_id)
                if seat is None:
                    continue
                progressed = True
                token = key if seat == 0 else guest
                started = time.perf_counter()
                document = app.submit(game_id, token, _first_legal(table, seat), table.version)
                answered = time.perf_counter()
                with_account.append(answered - started)
                commands += 1
                if seat == 1:
                    moves += 1
                    if "0" in document["view"]["to_act"]:
                        last_id = _await_notice(client, notices, last_id, game_id, document["version"])
                        delays.append(time.perf_counter() - answered)
                other, other_table = _to_act(app, plain_id)
                if other is not None:
                    begin = time.perf_counter()
                    app.submit(plain_id, tokens[other], _first_legal(other_table, other), other_table.version)
                    without.append(time.perf_counter() - begin)
            if not progressed:
                break
        stream_len = client.xlen(notices)
        memory = client.memory_usage(notices) or 0
        sizes = [len(fields[b"n"]) for _, fields in client.xrange(notices)]
        _report(delays, with_account, without, stream_len, commands, sizes, memory)
    finally:
        stop.set()
        if thread is not None:
            thread.join(10)
        server.stop()
    return 0


def _to_act(app: Any, game_id: str) -> tuple[int | None, Any]:
    table = app.tables.load(game_id)
    if table.status != "running":
        return None, table
    to_act = get_game(table.game).to_act(table.state)
    return (min(to_act) if to_act else None), table


def _first_legal(table: Any, seat: int) -> dict[str, Any]:
    return get_game(table.game).legal_commands(table.state, seat)[0]  # type: ignore[no-any-return]


def _await_notice(client: Any, key: str, last_id: str, game_id: str, version: int) -> str:
    """Block until the account's stream holds the your-turn notice of (game, version)."""
    import json

    while True:
        reply = client.xread({key: last_id}, block=5000, count=100)
        if not reply:
            raise RuntimeError(f"no notice for {game_id}@{version} within 5 s")
        for entry_id, fields in reply[0][1]:
            last_id = entry_id.decode()
            notice = json.loads(fields[b"n"])
            if notice["game_id"] == game_id and notice["version"] >= version and notice["to_move"]:
                return last_id


def _report(delays: list[float], with_account: list[float], without: list[float], kept: int, commands: int,
            sizes: list[int], memory: int) -> None:
    def ms(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    print(f"turn notices timed: {len(delays)}")
    print(f"command answered -> notice readable: p50 {ms(delays, 0.5):.2f} ms, p95 {ms(delays, 0.95):.2f} ms,"
          f" max {1000 * max(delays):.2f} ms")
    print(f"notices kept: {kept} for {commands} commands in the account's games")
    print(f"notice JSON: mean {statistics.mean(sizes):.0f} B; Redis memory per kept notice ~{memory / max(1, kept):.0f} B")
    print(f"command latency, account games: p50 {ms(with_account, 0.5):.2f} ms; guest-only games:"
          f" p50 {ms(without, 0.5):.2f} ms")


if __name__ == "__main__":
    raise SystemExit(main())
