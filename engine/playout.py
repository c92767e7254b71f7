"""Complete games played by a policy, engine only: for simulation, tests and benches.

A playout is deterministic: the same game, options, players and seed give the same
events, whatever machine runs it. The game's random outcomes come from
``SeededRandom(seed, rules_version)``; the policy's own choices from an
independent stream (namespace ``"playout"``), so the policy never learns a draw.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.game import Game, replay
from engine.model import JSON, Event, Result
from engine.rng import RandomSource, SeededRandom

# A policy picks one of the legal commands (never empty) from what the seat may
# see: its own view, never the full state -- hidden information stays hidden.
Policy = Callable[[JSON, list[JSON], RandomSource, str], JSON]

MAX_COMMANDS = 200_000
"""Safety net: a playout that needs more commands than this is a bug in a game."""


def random_policy(view: JSON, legal: list[JSON], rng: RandomSource, purpose: str) -> JSON:
    """Uniform over the legal commands."""
    return legal[rng.randbelow(len(legal), purpose)]


@dataclass(frozen=True, slots=True)
class Playout:
    """A finished game: its history, final state and result."""

    events: list[Event]
    commands: list[tuple[int, JSON]]
    state: Any
    result: Result


def next_actor(game: Game[Any], state: Any) -> int:
    """The seat that acts next: the lowest seat that must act (games have one at a time)."""
    return min(game.to_act(state))


def play(
    game: Game[Any],
    players: int,
    seed: bytes,
    options: Mapping[str, Any] | None = None,
    policies: Mapping[int, Policy] | None = None,
    on_step: Callable[[Any, int, JSON, list[Event]], None] | None = None,
) -> Playout:
    """Play one full game; seats without a policy in ``policies`` play randomly.

    ``on_step(state_before, seat, command, new_events)`` is called after every command
    (tests use it to check invariants at each step). Raises RuntimeError if the game
    does not end within MAX_COMMANDS commands.
    """
    game_rng = SeededRandom(seed, game.rules_version)
    pick_rng = SeededRandom(seed, "playout")
    events = game.setup(game.validate_options(options), players, game_rng)
    state = replay(game, events)
    commands: list[tuple[int, JSON]] = []
    while (result := game.result(state)) is None:
        if len(commands) >= MAX_COMMANDS:
            raise RuntimeError(f"{game.name} did not end within {MAX_COMMANDS} commands")
        seat = next_actor(game, state)
        legal = game.legal_commands(state, seat)
        policy = (policies or {}).get(seat)
        purpose = f"pick/{len(commands)}"
        if policy is None:  # the default needs no view: skip computing it
            command = random_policy({}, legal, pick_rng, purpose)
        else:
            command = policy(game.view(state, seat), legal, pick_rng, purpose)
        new = game.decide(state, seat, command, game_rng)
        if on_step is not None:
            on_step(state, seat, command, new)
        state = replay(game, new, state)
        events.extend(new)
        commands.append((seat, command))
    return Playout(events, commands, state, result)
