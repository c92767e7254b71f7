"""Bot fairness: another game's bot turn latency with and without many strong-bot games.

Starts a throwaway Redis and ``--workers`` real ``tabletop worker`` processes (the
deployment's defaults: two workers, ``bot_budget_s`` 1 s), then, per case, creates
``n`` all-strong-bot Schlitzohr games (two strong seats each) and, once their first
turns are queued, one all-greedy game (``turn_cap`` 10) whose turns are measured: a
turn's latency is the time from the append that made it due to the bot's own append
(the events' ``time`` stamps, written by the store). Cases: no strong games, and
``--strong-games`` (default 20, the issue's repro).

Before issue 11 every bot turn went to one FIFO queue and the greedy game's turns took
10-15 s each with 20 strong games; now strong turns have a queue of their own that
workers take from only when no cheap turn waits.

    .venv/bin/python -m bench.bots_fairness_bench [--strong-games 20] [--workers 2] [--budget 1.0]
"""

from __future__ import annotations

import argparse

from rq import Queue

from bench.bot_workers import (
    latency_summary,
    start_workers,
    stop_workers,
    turn_latencies,
    wait_finished,
    wait_for_workers,
)
from events.redis_adapter.server import RedisServer
from service.app.notify import bot_queue_names
from service.bootstrap import build
from service.settings import Settings

SHORT = {"turn_cap": 10}


def run_case(server: RedisServer, strong_games: int, workers: int, budget: float) -> dict[str, float]:
    settings = Settings(
        redis_url=server.url,
        key_prefix=f"bench{strong_games}:",
        queue_name=f"bench-fair-{strong_games}",
        bot_budget_s=budget,
    )
    svc = build(settings)
    procs = start_workers(settings, workers, bot_budget_s=str(budget))
    try:
        wait_for_workers(settings, svc.redis, workers)
        strong = [
            svc.app.create_game("schlitzohr", {}, ["strong", "strong"])["game_id"]
            for _ in range(strong_games)
        ]
        greedy = svc.app.create_game("schlitzohr", SHORT, ["greedy", "greedy"])["game_id"]
        strong_queue = Queue(bot_queue_names(settings)[1], connection=svc.redis)
        wait_finished(svc, greedy, "the greedy game")
        waiting_strong = strong_queue.count
        events = svc.app.queries.history(greedy, 0, 0, 1000)["events"]
        latencies = turn_latencies(events)
        running_strong = sum(svc.app.queries.view(g, None)["status"] == "running" for g in strong)
    finally:
        stop_workers(procs)
        svc.redis.close()
    return {
        **latency_summary(latencies),
        "strong_running": running_strong,
        "strong_queued": waiting_strong,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strong-games", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget", type=float, default=1.0, help="bot_budget_s (default 1.0)")
    args = parser.parse_args()
    server = RedisServer().start()
    try:
        print(f"workers={args.workers} bot_budget_s={args.budget}")
        print(f"{'strong games':>12} {'turns':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'strong running':>15} {'strong queued':>14}")
        for n in (0, args.strong_games):
            r = run_case(server, n, args.workers, args.budget)
            print(
                f"{n:>12} {r['turns']:>6} {r['p50_ms']:>8.1f} {r['p95_ms']:>8.1f} {r['max_ms']:>8.1f}"
                f" {r['strong_running']:>15} {r['strong_queued']:>14}"
            )
    finally:
        server.close()


if __name__ == "__main__":
    main()
