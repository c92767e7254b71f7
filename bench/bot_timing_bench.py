"""Can a cheap bot's hidden hand be timed from the events' public times?

A greedy Abluxxen bot takes longer the more sets its hand can play; every event
carries its time to the microsecond. This bench asks what an opponent can learn
from those times alone, with and without the floor every bot turn waits out
(``TABLETOP_BOT_FLOOR_MS``, ``service.app.pacing``).

Per case it starts one real ``tabletop worker`` on a throwaway Redis, plays ``--games``
all-greedy two-seat Abluxxen games one after another (so the queue is as quiet as an
attacker could wish), and then, knowing everything once the games are over, pairs
each bot play with two numbers:

- the **gap**: the time of the play's first event less the time of the event before
  it -- what any viewer reads off the public history;
- the bot's number of **legal commands** there -- a hidden fact (it follows from the
  hand).

It prints their correlation (Pearson's r, with t = r·√(n−2)/√(1−r²): |t| above 2 is a
signal, below is noise) and the median gap of the quartile with the fewest legal
commands against the quartile with the most. Only ``play`` decisions count: a
victim's draws have two or three choices whatever its hand, and mixing phases would
correlate through public facts. Cases: floor 0 (the old behaviour), then the default.

    .venv/bin/python -m bench.bot_timing_bench [--games 28]
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import statistics
import time
from collections.abc import Sequence

from rq import Queue, Worker

from bench.bot_workers import stamp, start_workers
from engine.registry import get_game
from events.audit.replay import tables
from events.model.envelope import Envelope
from events.model.redaction import ADMIN
from events.redis_adapter.server import RedisServer
from service.app.notify import bot_queue_names
from service.bootstrap import build
from service.settings import Settings


def play_games(server: RedisServer, floor_ms: int, games: int) -> list[tuple[int, float]]:
    """(legal commands, gap in ms) of every bot play in ``games`` all-greedy games."""
    settings = Settings(
        redis_url=server.url,
        key_prefix=f"timing{floor_ms}:",
        queue_name=f"bench-timing-{floor_ms}",
        bot_floor_ms=floor_ms,
    )
    svc = build(settings)
    (worker,) = start_workers(settings, 1, bot_floor_ms=str(floor_ms))
    pairs: list[tuple[int, float]] = []
    try:
        cheap = Queue(bot_queue_names(settings)[0], connection=svc.redis)
        while Worker.count(queue=cheap) < 1:  # not its start-up in the figures
            time.sleep(0.05)
        for _ in range(games):
            game_id = svc.app.create_game("abluxxen", {}, ["greedy", "greedy"])["game_id"]
            deadline = time.monotonic() + 120
            while svc.app.queries.view(game_id, None)["status"] != "finished":
                if time.monotonic() > deadline:
                    raise RuntimeError(f"game {game_id} did not finish in 2 minutes")
                time.sleep(0.05)
            pairs += _plays(svc.store.read_all(game_id, ADMIN))
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(60)
        svc.redis.close()
    return pairs


def _plays(history: Sequence[Envelope]) -> list[tuple[int, float]]:
    game = get_game("abluxxen")
    states = list(tables(history))
    pairs = []
    for i in range(1, len(history)):
        event, before = history[i], history[i - 1]
        command = event.command or {}
        first_of_batch = (event.actor, command) != (before.actor, before.command)
        if first_of_batch and event.actor.get("kind") == "bot" and command.get("kind") == "play":
            legal = game.legal_commands(states[i - 1].state, event.actor["seat"])
            pairs.append((len(legal), 1000 * (stamp(event.time) - stamp(before.time))))
    return pairs


def summary(pairs: list[tuple[int, float]]) -> dict[str, float]:
    """r and its t, the median gap overall and in the fewest / most legal quartiles."""
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    cov = sum((x - mx) * (y - my) for x, y in pairs)
    r = cov / math.sqrt(sum((x - mx) ** 2 for x in xs) * sum((y - my) ** 2 for y in ys))
    ordered = sorted(xs)
    low, high = ordered[len(ordered) // 4], ordered[3 * len(ordered) // 4]
    return {
        "n": len(pairs),
        "r": r,
        "t": r * math.sqrt(len(pairs) - 2) / math.sqrt(1 - r * r),
        "p50": statistics.median(ys),
        "low": statistics.median(y for x, y in pairs if x <= low),
        "high": statistics.median(y for x, y in pairs if x >= high),
        "low_at": low,
        "high_at": high,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=28)
    args = parser.parse_args()
    server = RedisServer().start()
    try:
        print(f"{'floor ms':>8} {'plays':>6} {'r':>7} {'t':>6} {'gap p50 ms':>11} {'fewest legal':>20} {'most legal':>20}")
        for floor_ms in (0, Settings().bot_floor_ms):
            s = summary(play_games(server, floor_ms, args.games))
            fewest = f"<={s['low_at']:.0f}: {s['low']:.2f} ms"
            most = f">={s['high_at']:.0f}: {s['high']:.2f} ms"
            print(
                f"{floor_ms:>8} {s['n']:>6.0f} {s['r']:>7.3f} {s['t']:>6.2f} {s['p50']:>11.2f}"
                f" {fewest:>20} {most:>20}"
            )
    finally:
        server.close()


if __name__ == "__main__":
    main()
