"""The strong bot's search: determinized Monte Carlo over the seat's information set.

The seat cannot see the hidden facts (ear colours, other hands, the pile), so a
command is judged over *worlds*: full states drawn by the game's sampler from
everything the seat's view shows, each with its own future dice and shuffles.
In a world, a candidate command is played, then every seat plays on greedily --
each from its own view of that world -- for ``horizon`` commands, and the kit
evaluates the result for the searching seat. A candidate's value is its mean
over the worlds: a vote of the determinizations, weighted by how well it did.

Candidates are the greedy ranking's best few. The budget is spent by sequential
halving (Karnin et al. 2013): in each round every surviving candidate is played
in the same fresh worlds -- common random numbers, so the comparison measures
the commands and not the luck of the worlds -- and the worse half is dropped.
Ties go to the better-ranked candidate, so where the simulations see no
difference the greedy judgement decides.

Deterministic for a given (view, legal, rng, iterations) without a deadline. A
``deadline`` callable, checked after each world, lets a caller bound the time;
at least one world is always played.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.ai.kit import GameKit
from engine.ai.randomness import ScopedRandom, derived
from engine.ai.rollout import rollout
from engine.game import replay
from engine.model import JSON
from engine.rng import RandomSource

MAX_CANDIDATES = 8
"""Commands the search compares at most (the greedy ranking's best)."""

Deadline = Callable[[], bool]
"""Returns True once the caller's time for this decision is up."""


@dataclass(slots=True)
class _Arm:
    command: JSON
    total: float = 0.0
    worlds: int = 0

    @property
    def mean(self) -> float:
        return self.total / self.worlds if self.worlds else 0.0


def search(
    kit: GameKit,
    view: JSON,
    legal: Sequence[JSON],
    rng: RandomSource,
    iterations: int,
    deadline: Deadline | None = None,
) -> JSON:
    """The best candidate after about ``iterations`` simulations (see the module docstring)."""
    arms = [_Arm(command) for command in kit.candidates(view, legal, MAX_CANDIDATES)]
    if len(arms) == 1:
        return arms[0].command
    seat = kit.seat(view)
    rounds = math.ceil(math.log2(len(arms)))
    alive, spent, world = arms, 0, 0
    for done in range(rounds):
        worlds = max(1, (iterations - spent) // (len(alive) * (rounds - done)))
        for _ in range(worlds):
            _play_world(kit, view, seat, alive, rng, world)
            spent, world = spent + len(alive), world + 1
            if deadline is not None and deadline():
                return _best(alive).command
        alive = sorted(alive, key=lambda arm: -arm.mean)[: math.ceil(len(alive) / 2)]
    return _best(alive).command


def _best(arms: list[_Arm]) -> _Arm:
    # max() keeps the first of equal means: the better-ranked candidate.
    return max(arms, key=lambda arm: arm.mean)


def _play_world(
    kit: GameKit, view: JSON, seat: int, arms: list[_Arm], rng: RandomSource, world: int
) -> None:
    """Sample world number ``world`` and play every arm in it."""
    sampled = kit.sample(view, ScopedRandom(rng, f"world/{world}/sample"))
    # One seeded source per world: every arm meets the same dice and shuffles.
    fate = derived(rng, f"world/{world}/fate", "fate")
    for arm in arms:
        arm.total += _simulate(kit, sampled, seat, arm.command, fate)
        arm.worlds += 1


def _simulate(kit: GameKit, state: Any, seat: int, command: JSON, rng: RandomSource) -> float:
    game = kit.game
    state = replay(game, game.decide(state, seat, command, rng), state)
    return kit.evaluate(rollout(game, kit.greedy, state, rng, kit.horizon), seat)
