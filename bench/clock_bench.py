"""The sweeper's cost with turn clocks: what does a pass cost per 10,000 running clocked games?

    .venv/bin/python -m bench.clock_bench [--games 10000] [--due 100] [--passes 50]

Starts a throwaway Redis (AOF off: this measures the sweeper, not the disk), creates
``--games`` running two-person Abluxxen games (created and both seats joined through
the application, as the API does) and measures, in one run:

1. **baseline** -- the sweeper's pass as it was before clocks (``sweep_once`` for the
   bot index + ``expire_open_games``) over the same running games: what a pass cost
   before clocks existed (the pass never looks at a game without a bot or an open seat);
2. **clocks, none due** -- the same pass plus ``sweep_clocks`` with ``--games`` clocked
   games (per decision 1 h), none due: what every pass costs in steady state;
3. **clocks, some due** -- ``--due`` more clocked games (1 s) whose seat never moves,
   after their deadline: the passes it takes to time them all out (each pass stops at
   ``CLOCK_PASS_BUDGET_S``) (``TurnTimedOut`` + a greedy bot's
   decision each, through the command path) -- total and per timeout;
4. **reference: a scan** -- what finding the due games would cost *without* the index:
   one table load per running game (each from its snapshot or events).

Passes 1 and 2 are timed ``--passes`` times (median and p95 reported); 3 and 4 once
(3 changes the state; 4 is the thing the index avoids). Every loop is bounded.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from events.redis_adapter.keys import CLOCKS_DUE, prefixed
from events.redis_adapter.server import RedisServer
from service.app.notify import BotQueue
from service.bootstrap import Services, build
from service.settings import Settings
from workers.sweeper import expire_open_games, sweep_clocks, sweep_once

LONG = {"per_decision_s": 3600, "policy": "bot:greedy"}
SHORT = {"per_decision_s": 1, "policy": "bot:greedy"}


def make_games(svc: Services, n: int, clock: dict[str, Any] | None) -> list[str]:
    ids = []
    for i in range(n):
        game_id = svc.app.create_game("abluxxen", {}, [None, None], clock=clock)["game_id"]
        svc.app.join(game_id, "a")
        svc.app.join(game_id, "b")
        ids.append(game_id)
        if i and i % 2000 == 0:
            print(f"  ... {i} games", flush=True)
    return ids


def timed(fn: Any, passes: int) -> tuple[float, float]:
    """(median, p95) in ms of ``passes`` calls of ``fn``."""
    samples = []
    for _ in range(passes):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.95))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--due", type=int, default=100)
    parser.add_argument("--passes", type=int, default=50)
    args = parser.parse_args()
    with RedisServer(config={"appendonly": "no"}) as server:
        svc = build(Settings(redis_url=server.url, key_prefix="bench:", open_game_ttl_s=86_400))
        bots = BotQueue.of(svc.settings, svc.queue_redis)

        def old_pass() -> None:
            sweep_once(svc, bots)
            expire_open_games(svc)

        def new_pass() -> None:
            old_pass()
            sweep_clocks(svc)

        print(f"creating {args.games} running games with a 1 h clock ...", flush=True)
        t0 = time.perf_counter()
        clocked = make_games(svc, args.games, LONG)
        print(f"  {time.perf_counter() - t0:.1f} s")
        assert svc.redis.zcard(prefixed("bench:", CLOCKS_DUE)) == args.games
        base = timed(old_pass, args.passes)
        quiet = timed(new_pass, args.passes)
        clocks_only = timed(lambda: sweep_clocks(svc), args.passes)

        print(f"creating {args.due} games with a 1 s clock, waiting for their deadline ...", flush=True)
        short = make_games(svc, args.due, SHORT)
        time.sleep(2.5)
        t0 = time.perf_counter()
        timed_out = passes_due = 0
        while timed_out < args.due and passes_due < 100:  # each pass stops at its time budget
            outcomes = sweep_clocks(svc)
            timed_out += sum(1 for o in outcomes.values() if o == "timed_out")
            passes_due += 1
        due_ms = (time.perf_counter() - t0) * 1000
        assert timed_out == args.due, outcomes

        fresh = build(Settings(redis_url=server.url, key_prefix="bench:"))  # cold table cache
        t0 = time.perf_counter()
        for game_id in clocked:
            fresh.app.tables.load(game_id)
        scan_ms = (time.perf_counter() - t0) * 1000
        _ = short

    per10k = 10_000 / args.games
    print()
    print(f"sweeper pass, {args.games} running games (ms; median / p95 of {args.passes} passes):")
    print(f"  baseline, no clocks (bots + open games)        {base[0]:8.3f} / {base[1]:8.3f}")
    print(f"  with clocks, none due (whole pass)            {quiet[0]:8.3f} / {quiet[1]:8.3f}")
    print(f"  with clocks, none due (clock part only)       {clocks_only[0]:8.3f} / {clocks_only[1]:8.3f}")
    print(f"  with clocks, {args.due} due ({passes_due} passes)           {due_ms:8.1f}   = {due_ms / args.due:.2f} ms per timeout")
    print(f"  reference: scanning every clocked game        {scan_ms:8.1f}   (= {scan_ms * per10k:.0f} ms per 10,000)")


if __name__ == "__main__":
    main()
