"""Engine speed: random full games per second and events per second.

For every game and player count it plays ``--games`` random games (the same
playouts ``tabletop simulate`` runs) and, as the in-run baseline, replays the
very same event histories with ``evolve`` alone -- the floor any playout costs.

    .venv/bin/python -m bench.engine_bench [--games 50] [--game abluxxen]
"""

from __future__ import annotations

import argparse
import time

from engine.game import replay
from engine.playout import play
from engine.registry import game_names, get_game


def bench_case(name: str, players: int, games: int) -> dict[str, float]:
    game = get_game(name)
    started = time.perf_counter()
    playouts = [play(game, players, f"bench:{k}".encode()) for k in range(games)]
    play_s = time.perf_counter() - started
    events = sum(len(p.events) for p in playouts)
    commands = sum(len(p.commands) for p in playouts)
    started = time.perf_counter()
    for p in playouts:
        replay(game, p.events)
    replay_s = time.perf_counter() - started
    return {
        "games_per_s": games / play_s,
        "events_per_s": events / play_s,
        "commands_per_s": commands / play_s,
        "replay_events_per_s": events / replay_s,
        "events_per_game": events / games,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--game", choices=game_names())
    args = parser.parse_args()
    header = f"{'game':<11}{'players':>8}{'games/s':>10}{'events/s':>11}{'commands/s':>12}{'ev/game':>9}  {'baseline: replay ev/s':>22}"
    print(header)
    print("-" * len(header))
    for name in [args.game] if args.game else game_names():
        game = get_game(name)
        for players in range(game.min_players, game.max_players + 1):
            r = bench_case(name, players, args.games)
            print(
                f"{name:<11}{players:>8}{r['games_per_s']:>10.1f}{r['events_per_s']:>11.0f}"
                f"{r['commands_per_s']:>12.0f}{r['events_per_game']:>9.0f}  {r['replay_events_per_s']:>22.0f}"
            )


if __name__ == "__main__":
    main()
