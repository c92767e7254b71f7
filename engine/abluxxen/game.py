"""The Abluxxen game object: the :class:`engine.game.Game` port, wired to the modules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine import fieldspec
from engine.abluxxen import deal, decide, evolve, legal, material, views
from engine.abluxxen import events as ev
from engine.abluxxen.cards import COPIES_PER_NUMBER, JOKER_COPIES, JOKER_JSON
from engine.abluxxen.scoring import current_scores
from engine.abluxxen.state import State
from engine.errors import INVALID_PLAYER_COUNT, RuleViolation
from engine.model import JSON, Command, CommandSpec, Event, OptionSpec, Result
from engine.options import validate_options
from engine.rng import RandomSource

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "edition",
        "choice",
        "amigo",
        "amigo: a turn that abluxxes nobody may draw one card; classic: no such draw",
        choices=("amigo", "classic"),
    ),
    OptionSpec("rounds", "int", 1, "number of deals; scores add up", minimum=1, maximum=10),
)

_CARD = fieldspec.one_of(fieldspec.integer(1, 13), fieldspec.const(JOKER_JSON))
_VICTIM = fieldspec.integer(0, 4, text="int seat")
"""A seat of the largest table; the engine also wants one of this game's seats."""
_DRAW_FROM = fieldspec.choice(ev.FROM_DISPLAY, ev.FROM_PILE)

COMMAND_SPECS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "play",
        "play a set: count cards of number plus jokers; number null = jokers only (count 0)",
        {
            "number": fieldspec.integer(1, 13, nullable=True),
            "count": fieldspec.integer(0, COPIES_PER_NUMBER),
            "jokers": fieldspec.integer(0, JOKER_COPIES),
        },
        {"kind": "play", "number": 7, "count": 2, "jokers": 1},
    ),
    CommandSpec(
        "take",
        "take the abluxxed set into your hand",
        {"victim": _VICTIM},
        {"kind": "take", "victim": 1},
    ),
    CommandSpec(
        "leave",
        "leave the abluxxed set to its owner",
        {"victim": _VICTIM},
        {"kind": "leave", "victim": 1},
    ),
    CommandSpec("take_back", "victim: take your left set back into hand"),
    CommandSpec("discard", "victim: discard your left set and draw as many cards"),
    CommandSpec(
        "draw",
        "draw one card: from the display (name the card) or from the pile",
        {
            "from": _DRAW_FROM,
            "card": fieldspec.FieldSpec(_CARD.schema, 'int 1..13 | "X" (display only)'),
        },
        {"kind": "draw", "from": "display", "card": 7},
        cases=(
            {"from": fieldspec.const(ev.FROM_DISPLAY), "card": _CARD},
            {"from": fieldspec.const(ev.FROM_PILE)},
        ),
    ),
    CommandSpec("pass", "decline the amigo bonus draw"),
)


class Abluxxen:
    """Abluxxen as a :class:`engine.game.Game`. Stateless; one shared instance, ``GAME``."""

    name = "abluxxen"
    title = "Abluxxen"
    rules_version = "abluxxen/1"
    min_players = 2
    max_players = 5
    option_specs = OPTION_SPECS
    command_specs = COMMAND_SPECS

    def validate_options(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        return validate_options(self.option_specs, raw)

    def setup(self, options: Mapping[str, Any], players: int, rng: RandomSource) -> list[Event]:
        """``GameStarted`` and the first deal; seat 0 starts **[house]**."""
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 5:
            raise RuleViolation(
                INVALID_PLAYER_COUNT, "Abluxxen is for 2 to 5 players", {"minimum": 2, "maximum": 5}
            )
        first = ev.game_started(players, options["edition"], options["rounds"])
        return [first, *deal.deal_events(players, 1, 0, rng)]

    def evolve(self, state: State | None, event: Event) -> State:
        return evolve.evolve(state, event)

    def decide(self, state: State, seat: int, command: Command, rng: RandomSource) -> list[Event]:
        return decide.decide(state, seat, command, rng)

    def to_act(self, state: State) -> dict[int, tuple[str, ...]]:
        return legal.to_act(state)

    def legal_commands(self, state: State, seat: int) -> list[JSON]:
        return legal.legal_commands(state, seat)

    def legal_choices(self, state: State, seat: int) -> list[JSON]:
        # No Abluxxen command picks k of n items (a play names a number and counts),
        # so the compact form is the enumerated one.
        return legal.legal_commands(state, seat)

    def view(self, state: State, seat: int | None) -> JSON:
        return views.view(state, seat)

    def scores(self, state: State) -> tuple[int, ...]:
        return current_scores(state)

    def result(self, state: State) -> Result | None:
        return state.result

    def is_material_conserved(self, state: State) -> bool:
        return material.is_material_conserved(state)


GAME = Abluxxen()
