"""Bot share: another client's bot turn latency while one client floods all-bot games.

Starts a throwaway Redis and ``--workers`` real ``tabletop worker`` processes per case
(the deployment's defaults: two workers, the 10 ms floor). One client
(``ip:192.0.2.1``) creates ``--flood`` all-random-bot Schlitzohr games at once; after
``--settle`` seconds (its burst spent) another client (``ip:192.0.2.2``) creates one
all-greedy game (``turn_cap`` 10) whose turns are measured: a turn's latency is the time
from the append that made it due to the bot's own append (the events' ``time`` stamps,
written by the store). Cases: no flood; the flood with no share (``bot_share`` 0, as
before ``service.app.bot_share``); the flood with the default share.

    .venv/bin/python -m bench.bot_share_bench [--flood 25] [--settle 8] [--workers 2]
"""

from __future__ import annotations

import argparse
import time

from bench.bot_workers import (
    latency_summary,
    start_workers,
    stop_workers,
    turn_latencies,
    wait_finished,
    wait_for_workers,
)
from events.redis_adapter.server import RedisServer
from service.bootstrap import build
from service.settings import Settings

SHORT = {"turn_cap": 10}
FLOODER, OTHER = "ip:192.0.2.1", "ip:192.0.2.2"


def run_case(server: RedisServer, name: str, flood: int, share: float, workers: int, settle: float) -> dict[str, float]:
    settings = Settings(
        redis_url=server.url, key_prefix=f"bench-{name}:", queue_name=f"bench-share-{name}", bot_share=share
    )
    svc = build(settings)
    procs = start_workers(settings, workers, bot_share=str(share))
    try:
        wait_for_workers(settings, svc.redis, workers)
        flooding = [svc.app.create_game("schlitzohr", {}, ["random", "random"], FLOODER)["game_id"] for _ in range(flood)]
        time.sleep(settle if flood else 0)
        measured = svc.app.create_game("schlitzohr", SHORT, ["greedy", "greedy"], OTHER)["game_id"]
        wait_finished(svc, measured, "the measured game")
        events = svc.app.queries.history(measured, 0, 0, 1000)["events"]
        latencies = turn_latencies(events)
        flood_running = sum(svc.app.queries.view(g, None)["status"] == "running" for g in flooding)
    finally:
        stop_workers(procs)
        svc.redis.close()
    return {
        **latency_summary(latencies),
        "flood_running": flood_running,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flood", type=int, default=25, help="all-bot games the flooding client creates")
    parser.add_argument("--settle", type=float, default=8.0, help="seconds between the flood and the measured game")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    default_share = Settings().bot_share
    cases = [("none", 0, default_share), ("flood-noshare", args.flood, 0.0), ("flood-share", args.flood, default_share)]
    server = RedisServer().start()
    try:
        print(f"workers={args.workers} flood={args.flood} settle={args.settle}s")
        print(f"{'case':>14} {'share':>6} {'turns':>6} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8} {'flood running':>14}")
        for name, flood, share in cases:
            r = run_case(server, name, flood, share, args.workers, args.settle)
            print(
                f"{name:>14} {share:>6} {r['turns']:>6} {r['p50_ms']:>8.1f} {r['p95_ms']:>8.1f}"
                f" {r['max_ms']:>8.1f} {r['flood_running']:>14}"
            )
    finally:
        server.close()


if __name__ == "__main__":
    main()
