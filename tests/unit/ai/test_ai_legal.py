"""Every bot level returns one of the listed legal commands, in any position of both games."""

from __future__ import annotations

import pytest
from ai_positions import CASES, IDS, random_position
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.ai import LEVELS, bot_policy, choose
from engine.playout import play
from engine.registry import get_game
from engine.rng import SeededRandom

SMALL_BUDGET = 12
"""Simulations for the strong bot in tests: enough to search, small enough to be fast."""


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=4, max_size=8), depth=st.integers(0, 400))
def test_every_level_returns_a_listed_command(
    name: str, players: int, seed: bytes, depth: int
) -> None:
    position = random_position(name, players, seed, depth)
    rng = SeededRandom(seed, "bot")
    for level in LEVELS:
        command = choose(name, level, position.view, position.legal, rng, budget=SMALL_BUDGET)
        assert command in position.legal, (level, command)
        position.game.decide(position.state, position.seat, command, rng)  # accepted


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
def test_bots_play_whole_games_among_themselves(name: str, players: int) -> None:
    # The positions bots steer into differ from random ones (more known colours,
    # bigger sets); a whole game of mixed levels visits them. play() raises
    # RuleViolation on any unlisted command.
    levels = [LEVELS[(seat + 1) % len(LEVELS)] for seat in range(players)]
    policies = {seat: bot_policy(name, level, budget=4) for seat, level in enumerate(levels)}
    playout = play(get_game(name), players, f"whole-{name}-{players}".encode(), policies=policies)
    assert playout.result.winners
