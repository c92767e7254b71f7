"""Greedy clearly beats random (the full strength tables live in bench/bots_bench.py).

Over the benches greedy wins about 98 % of two-player games against random in
both games, so 30 games with a bar of 70 % cannot fail by bad luck (the chance
is far below one in a million) while still catching a broken heuristic.
"""

from __future__ import annotations

import pytest

from engine.ai import bot_policy
from engine.playout import play
from engine.registry import get_game

GAMES = 30
BAR = 0.7


@pytest.mark.parametrize("name", ["schlitzohr", "abluxxen"])
def test_greedy_beats_random_in_two_player_games(name: str) -> None:
    game, greedy = get_game(name), bot_policy(name, "greedy")
    wins = 0.0
    for k in range(GAMES):
        seat = k % 2  # seats rotated
        result = play(game, 2, f"strength-{k}".encode(), policies={seat: greedy}).result
        if seat in result.winners:
            wins += 1 / len(result.winners)
    assert wins / GAMES >= BAR
