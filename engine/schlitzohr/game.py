"""Schlitzohr as an :class:`engine.game.Game`: the module-level ``GAME`` wires the parts.

Each method delegates to the module that owns the concern (setup, evolve,
decide, legal, views, invariants); see those for the guarantees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.model import JSON, Command, Event, Result
from engine.options import validate_options
from engine.rng import RandomSource
from engine.schlitzohr.decide import decide as _decide
from engine.schlitzohr.evolve import evolve as _evolve
from engine.schlitzohr.invariants import is_material_conserved as _is_material_conserved
from engine.schlitzohr.legal import legal_choices as _legal_choices
from engine.schlitzohr.legal import legal_commands as _legal_commands
from engine.schlitzohr.legal import to_act as _to_act
from engine.schlitzohr.material import MAX_PLAYERS, MIN_PLAYERS
from engine.schlitzohr.setup import setup as _setup
from engine.schlitzohr.specs import COMMAND_SPECS, OPTION_SPECS
from engine.schlitzohr.state import State
from engine.schlitzohr.state import scores as _scores
from engine.schlitzohr.views import view as _view


class Schlitzohr:
    """The rules of Schlitzohr, version ``schlitzohr/1`` (docs/rules/schlitzohr.md)."""

    name = "schlitzohr"
    title = "Schlitzohr"
    rules_version = "schlitzohr/1"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    option_specs = OPTION_SPECS
    command_specs = COMMAND_SPECS

    def validate_options(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        return validate_options(OPTION_SPECS, raw)

    def setup(self, options: Mapping[str, Any], players: int, rng: RandomSource) -> list[Event]:
        return _setup(options, players, rng)

    def evolve(self, state: State | None, event: Event) -> State:
        return _evolve(state, event)

    def decide(self, state: State, seat: int, command: Command, rng: RandomSource) -> list[Event]:
        return _decide(state, seat, command, rng)

    def to_act(self, state: State) -> dict[int, tuple[str, ...]]:
        return _to_act(state)

    def legal_commands(self, state: State, seat: int) -> list[JSON]:
        return _legal_commands(state, seat)

    def legal_choices(self, state: State, seat: int) -> list[JSON]:
        return _legal_choices(state, seat)

    def view(self, state: State, seat: int | None) -> JSON:
        return _view(state, seat)

    def scores(self, state: State) -> tuple[int, ...]:
        return _scores(state)

    def result(self, state: State) -> Result | None:
        return state.result

    def is_material_conserved(self, state: State) -> bool:
        return _is_material_conserved(state)


GAME = Schlitzohr()
