"""Schlitzohr's parts of the bots, bundled as a :class:`engine.ai.kit.GameKit`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine.ai.schlitzohr.evaluate import evaluate
from engine.ai.schlitzohr.greedy import greedy, ranked
from engine.ai.schlitzohr.observe import observe
from engine.ai.schlitzohr.sampler import sample
from engine.game import Game
from engine.model import JSON
from engine.registry import get_game
from engine.rng import RandomSource
from engine.schlitzohr.state import State

PER_KIND = 3
"""Candidates of one kind at most, so that a 6 weighs moving, peeking and placing."""


class SchlitzohrKit:
    """See :class:`engine.ai.kit.GameKit`."""

    game: Game[Any] = get_game("schlitzohr")
    default_iterations = 240
    horizon = 20
    """About three turns. Against 12 (two turns) at the same budget the strong bot won
    67 % instead of 58 % of 48 two-player games against greedy (the same seeds),
    while a bigger budget (400) at horizon 12 did not help (54 %)."""

    def seat(self, view: JSON) -> int:
        seat: int | None = view["viewer"]
        if seat is None:
            raise ValueError("a bot needs a seat's view, not a spectator's")
        return seat

    def greedy(self, view: JSON, legal: Sequence[JSON]) -> JSON:
        return greedy(view, legal)

    def candidates(self, view: JSON, legal: Sequence[JSON], limit: int) -> list[JSON]:
        out: list[JSON] = []
        per_kind: Counter[str] = Counter()
        for _, command in ranked(observe(view), legal):
            per_kind[command["kind"]] += 1
            if per_kind[command["kind"]] <= PER_KIND:
                out.append(command)
        return out[:limit]

    def sample(self, view: JSON, rng: RandomSource) -> State:
        return sample(view, rng)

    def evaluate(self, state: State, seat: int) -> float:
        return evaluate(state, seat)


KIT = SchlitzohrKit()
