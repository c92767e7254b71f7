"""Abluxxen's parts of the bots, bundled as a :class:`engine.ai.kit.GameKit`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.abluxxen.state import State
from engine.ai.abluxxen.evaluate import evaluate
from engine.ai.abluxxen.greedy import greedy, scored
from engine.ai.abluxxen.observe import observe
from engine.ai.abluxxen.sampler import sample
from engine.game import Game
from engine.model import JSON
from engine.registry import get_game
from engine.rng import RandomSource


class AbluxxenKit:
    """See :class:`engine.ai.kit.GameKit`."""

    game: Game[Any] = get_game("abluxxen")
    default_iterations = 240
    horizon = 10

    def seat(self, view: JSON) -> int:
        seat: int | None = view["seat"]
        if seat is None:
            raise ValueError("a bot needs a seat's view, not a spectator's")
        return seat

    def greedy(self, view: JSON, legal: Sequence[JSON]) -> JSON:
        return greedy(view, legal)

    def candidates(self, view: JSON, legal: Sequence[JSON], limit: int) -> list[JSON]:
        return [command for _, command in scored(observe(view), legal)[:limit]]

    def sample(self, view: JSON, rng: RandomSource) -> State:
        return sample(view, rng)

    def evaluate(self, state: State, seat: int) -> float:
        return evaluate(state, seat)


KIT = AbluxxenKit()
