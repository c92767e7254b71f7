"""The public bot API: determinism, budgets, deadlines and its failure modes."""

from __future__ import annotations

import json

import pytest
from ai_positions import random_position

from engine.ai import LEVELS, choose
from engine.errors import RuleViolation
from engine.model import JSON
from engine.registry import get_game
from engine.rng import SeededRandom


def test_the_levels() -> None:
    assert LEVELS == ("random", "greedy", "strong")


@pytest.mark.parametrize("name", ["schlitzohr", "abluxxen"])
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("depth", [0, 7, 25, 60])
def test_a_fixed_rng_and_budget_give_the_same_command(name: str, level: str, depth: int) -> None:
    position = random_position(name, 3, f"det-{depth}".encode(), depth)

    def pick() -> JSON:
        rng = SeededRandom(b"same", "bot")
        return choose(name, level, position.view, position.legal, rng, budget=20)

    assert pick() == pick()


def test_the_random_level_follows_its_rng() -> None:
    position = random_position("abluxxen", 2, b"spread", 0)
    picks = [
        choose("abluxxen", "random", position.view, position.legal, SeededRandom(bytes([k]), "bot"))
        for k in range(20)
    ]
    assert len({json.dumps(p, sort_keys=True) for p in picks}) > 3


def test_a_deadline_ends_the_search_after_one_world() -> None:
    position = random_position("schlitzohr", 2, b"deadline", 0)  # roll or joker: a real choice
    calls = 0

    def deadline() -> bool:
        nonlocal calls
        calls += 1
        return True

    command = choose(
        "schlitzohr", "strong", position.view, position.legal, SeededRandom(b"d", "bot"),
        budget=10_000, deadline=deadline,
    )
    assert command in position.legal
    assert calls == 1


def test_unknown_level_or_game_empty_legal_or_no_budget_are_refused() -> None:
    position = random_position("abluxxen", 2, b"refuse", 0)
    rng = SeededRandom(b"r", "bot")
    with pytest.raises(ValueError, match="level"):
        choose("abluxxen", "genius", position.view, position.legal, rng)
    with pytest.raises(RuleViolation) as err:
        choose("chess", "greedy", position.view, position.legal, rng)
    assert err.value.code == "unknown_game"
    with pytest.raises(ValueError, match="legal"):
        choose("abluxxen", "greedy", position.view, [], rng)
    with pytest.raises(ValueError, match="budget"):
        choose("abluxxen", "strong", position.view, position.legal, rng, budget=0)


@pytest.mark.parametrize("name", ["schlitzohr", "abluxxen"])
def test_a_spectator_view_is_refused(name: str) -> None:
    position = random_position(name, 2, b"spectator", 0)
    spectator = get_game(name).view(position.state, None)
    with pytest.raises(ValueError, match="spectator"):
        choose(name, "strong", spectator, position.legal, SeededRandom(b"s", "bot"), budget=4)
