"""Engine states for rules tests: a fresh game, and a state with events folded in."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.model import Event
from engine.registry import get_game
from engine.rng import SeededRandom


def new_state(game: str, players: int, seed: bytes | None = None) -> Any:
    """The state right after the setup of a ``players``-seat ``game`` with default
    options (the setup's random source from ``seed``, by default the game and count)."""
    engine = get_game(game)
    rng = SeededRandom(seed if seed is not None else f"{game}{players}".encode(), "setup")
    state = None
    for event in engine.setup(engine.validate_options({}), players, rng):
        state = engine.evolve(state, event)
    return state


def apply(game: str, state: Any, events: Iterable[Event]) -> Any:
    """``state`` with ``events`` folded in, in order."""
    for event in events:
        state = get_game(game).evolve(state, event)
    return state
