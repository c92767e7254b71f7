"""``tabletop up``: start the whole service.

Until the HTTP server exists (issue 4) this plays one demo game of each type and
prints the results, so the README's start command already works end to end.
"""

from __future__ import annotations

import argparse
from typing import Any

from engine.playout import play
from engine.registry import game_names, get_game


def add_parser(sub: Any) -> None:
    p = sub.add_parser("up", help="start the whole service")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    print("tabletop: the HTTP API is not built yet; playing one demo game of each type instead.")
    for name in game_names():
        game = get_game(name)
        playout = play(game, game.min_players + 1, b"demo", {})
        print(f"{name}: {len(playout.events)} events, result {playout.result.to_json()}")
    return 0
