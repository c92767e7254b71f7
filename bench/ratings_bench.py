"""The ratings projection's cost per game: live in order, live with late games, and a rebuild.

    .venv/bin/python -m bench.ratings_bench [--redis-url URL] [--games N] [--players P]

Synthetic finished games (2-4 rated identities drawn from P accounts and the three bot
levels, one game type) are fed to ``events.projections.ratings.Ratings`` -- the part of
the projection this measures; reading a finished game's history once to find its
seats (``Updater._submit_rating``) costs one ``read_all``, see ``projection_bench``:

- ``live, in order``: per game ``submit`` then ``rate_pending`` (what the updater does
  when a game ends), games arriving in the rating order;
- ``live, late``: the same, but every second pair arrives swapped (the earlier game
  comes after the later one was rated, so that one is rated again);
- ``rebuild``: every game submitted, then one ``rate_all`` (batches of ``BATCH``).

Without ``--redis-url`` a throwaway redis-server is started; with one, only keys under a
fresh ``bench:<id>:`` prefix are written, and deleted afterwards.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import redis

from bench.redis_target import fresh_prefix as new_prefix
from bench.redis_target import redis_target, server_info
from events.projections.rating_outcome import RatedOutcome
from events.projections.ratings import Ratings

GAME = "schlitzohr"
START_US = 1_790_000_000_000_000


def outcomes(games: int, players: int, seed: int = 1) -> list[RatedOutcome]:
    pick = random.Random(seed)
    pool = [f"player:p{i}" for i in range(players)] + ["bot:random", "bot:greedy", "bot:strong"]
    out = []
    for n in range(games):
        idents = pick.sample(pool, pick.randint(2, 4))
        ranks = sorted(pick.randint(1, len(idents)) for _ in idents)
        ended_us = START_US + n * 1000
        out.append(
            RatedOutcome(
                f"g{n:06d}", GAME, f"t{ended_us}", ended_us, tuple(zip(idents, ranks, strict=True))
            )
        )
    return out


def timed(label: str, games: int, run: Callable[[], object]) -> None:
    started = time.perf_counter()
    run()
    seconds = time.perf_counter() - started
    print(f"{label:<18} {games:>6} games  {seconds:7.2f} s  {seconds / games * 1e3:7.3f} ms/game")


PREFIXES: list[str] = []
"""Every prefix this run wrote under (deleted at the end, and nothing else)."""


def fresh_prefix() -> str:
    PREFIXES.append(new_prefix())
    return PREFIXES[-1]


def measure(client: redis.Redis, games: int, players: int) -> None:
    played = outcomes(games, players)
    late = list(played)
    for i in range(0, len(late) - 1, 4):
        late[i], late[i + 1] = late[i + 1], late[i]

    def live(order: list[RatedOutcome]) -> Callable[[], object]:
        ratings = Ratings(client, fresh_prefix())

        def run() -> None:
            for outcome in order:
                ratings.submit(outcome)
                ratings.rate_pending(GAME)

        return run

    timed("live, in order", games, live(played))
    timed("live, late", games, live(late))
    ratings = Ratings(client, fresh_prefix())
    for outcome in played:
        ratings.submit(outcome)
    timed("rebuild (rate)", games, lambda: ratings.rate_pending(GAME))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis-url", help="use this server (keys under fresh prefixes)")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=200, help="accounts in the pool")
    args = parser.parse_args()
    with redis_target(args.redis_url, extra_prefixes=PREFIXES) as (client, url, _prefix):
        print(f"redis {server_info(client, 'server')['redis_version']} at {url}")
        measure(client, args.games, args.players)


if __name__ == "__main__":
    main()
