"""The interface every game implements (a port, in hexagonal terms).

A game is a set of pure functions over immutable state values:

    events = game.setup(options, players, rng)        # a new game -> its first events
    state  = reduce(game.evolve, events, None)         # events -> state (never draws)
    events = game.decide(state, seat, command, rng)    # a command -> new events, or RuleViolation

``evolve(None, first_event)`` builds the initial state, so a state is always the
fold of its events: replaying a stored history never draws a random number.
Random outcomes are drawn only in ``setup`` and ``decide``, from the ``rng`` the
caller passes, and are written into the events.

Guarantees every implementation keeps (tests/unit/test_game_contract.py checks them):
- ``legal_commands(state, seat)`` is complete: ``decide`` accepts a command iff it
  is in that list; a seat not in ``to_act(state)`` has none;
- ``legal_choices(state, seat)`` is the same list in compact form (``engine.choices``):
  ``engine.choices.expand`` of it equals ``legal_commands(state, seat)``;
- ``decide`` raises only :class:`~engine.errors.RuleViolation` for any input, however
  malformed, and never mutates ``state``;
- ``view(state, seat)`` (``seat=None`` for a spectator) is JSON-safe and holds
  nothing the rules hide from that viewer;
- every game ends: ``result(state)`` is not None after finitely many commands.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar

from engine.model import JSON, Command, CommandSpec, Event, OptionSpec, Result
from engine.rng import RandomSource

S = TypeVar("S")


class Game(Protocol[S]):
    """A game's rules. See the module docstring for the guarantees."""

    name: str
    title: str
    rules_version: str
    min_players: int
    max_players: int
    option_specs: tuple[OptionSpec, ...]
    command_specs: tuple[CommandSpec, ...]

    def validate_options(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        """Complete, checked options, or RuleViolation ``invalid_option``."""
        ...

    def setup(self, options: Mapping[str, Any], players: int, rng: RandomSource) -> list[Event]:
        """The events that start a game (options must already be validated).

        Raises RuleViolation ``invalid_player_count`` outside the game's range.
        """
        ...

    def evolve(self, state: S | None, event: Event) -> S:
        """The state after ``event``. Pure; trusts that the event came from ``decide``."""
        ...

    def decide(self, state: S, seat: int, command: Command, rng: RandomSource) -> list[Event]:
        """The events ``command`` by ``seat`` produces, or RuleViolation."""
        ...

    def to_act(self, state: S) -> dict[int, tuple[str, ...]]:
        """The seats that must act now, each with the command kinds it may send."""
        ...

    def legal_commands(self, state: S, seat: int) -> list[JSON]:
        """Every command ``seat`` may send now, in JSON form (empty if none)."""
        ...

    def legal_choices(self, state: S, seat: int) -> list[JSON]:
        """``legal_commands`` in compact form: each k-of-n pick as one choice
        (``engine.choices``); other commands as in ``legal_commands``."""
        ...

    def view(self, state: S, seat: int | None) -> JSON:
        """What ``seat`` (None = spectator) may see of ``state``, as JSON."""
        ...

    def scores(self, state: S) -> tuple[int, ...]:
        """The score of every seat so far."""
        ...

    def result(self, state: S) -> Result | None:
        """The outcome once the game has ended, else None."""
        ...

    def is_material_conserved(self, state: S) -> bool:
        """Whether every piece of material is accounted for (an invariant for tests)."""
        ...


def replay(game: Game[S], events: Sequence[Event], state: S | None = None) -> S:
    """Fold ``events`` into a state, starting from ``state`` (None = a new game)."""
    for event in events:
        state = game.evolve(state, event)
    if state is None:
        raise ValueError("cannot replay an empty history")
    return state
