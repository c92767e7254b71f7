"""Test helper: random positions of every game and player count, with the acting seat.

A position is reached by a random playout cut after ``depth`` commands (the
whole game if it ends first, then the last position before the end).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.game import Game, replay
from engine.model import JSON
from engine.playout import next_actor
from engine.registry import game_names, get_game
from engine.rng import SeededRandom

CASES = [
    (name, players)
    for name in game_names()
    for players in range(get_game(name).min_players, get_game(name).max_players + 1)
]
IDS = [f"{name}-{players}p" for name, players in CASES]


@dataclass(frozen=True)
class Position:
    game: Game[Any]
    state: Any
    seat: int
    view: JSON
    legal: list[JSON]


def random_position(name: str, players: int, seed: bytes, depth: int) -> Position:
    """The position after ``depth`` random commands (or just before the game ends)."""
    game = get_game(name)
    rng = SeededRandom(seed, game.rules_version)
    pick = SeededRandom(seed, "test-pick")
    state = replay(game, game.setup(game.validate_options(None), players, rng))
    for step in range(depth):
        seat = next_actor(game, state)
        legal = game.legal_commands(state, seat)
        command = legal[pick.randbelow(len(legal), f"{step}")]
        after = replay(game, game.decide(state, seat, command, rng), state)
        if game.result(after) is not None:
            break
        state = after
    seat = next_actor(game, state)
    return Position(game, state, seat, game.view(state, seat), game.legal_commands(state, seat))
