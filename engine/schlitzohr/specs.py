"""The option and command catalogue of Schlitzohr (served by the API, shown in docs)."""

from __future__ import annotations

from engine.model import CommandSpec, OptionSpec
from engine.schlitzohr.board import DEFAULT_LAYOUT, LAYOUTS

LAYOUT = "layout"
JOKER_SIX_RETURNS = "joker_six_returns"
TURN_CAP = "turn_cap"

OPTION_SPECS: tuple[OptionSpec, ...] = (
    OptionSpec(LAYOUT, "choice", DEFAULT_LAYOUT, "board layout", choices=tuple(LAYOUTS)),
    OptionSpec(JOKER_SIX_RETURNS, "bool", True, "a joker whose roll is 6 comes back to its player"),
    OptionSpec(
        TURN_CAP,
        "int",
        300,
        "the game ends after this many turns (all seats' turns count)",
        10,
        2000,
    ),
)

ROLL = "roll"
JOKER = "joker"
MOVE = "move"
PEEK = "peek"
PLACE = "place"
INSPECT = "inspect"
KINDS: frozenset[str] = frozenset({ROLL, JOKER, MOVE, PEEK, PLACE, INSPECT})

COMMAND_SPECS: tuple[CommandSpec, ...] = (
    CommandSpec(ROLL, "turn start: roll the die (1-5: move; 6: choose move, peek or place)"),
    CommandSpec(JOKER, "turn start, jokers left: spend a joker, roll, then inspect that many ears"),
    CommandSpec(
        MOVE,
        "one step of a move: an ear on a grey field goes 1..pips fields straight N/S/E/W",
        {"ear": "int 0..15", "to": "field name"},
        {"kind": MOVE, "ear": 3, "to": "f5"},
    ),
    CommandSpec(PEEK, "after a 6: roll again, then inspect that many ears"),
    CommandSpec(
        PLACE,
        "after a 6: put a face-down ear on a free target field of your colour",
        {"ear": "int 0..15", "to": "target field name"},
        {"kind": PLACE, "ear": 7, "to": "c1"},
    ),
    CommandSpec(
        INSPECT,
        "look at exactly the announced number of distinct face-down ears, ids ascending",
        {"ears": "list of int 0..15, strictly ascending"},
        {"kind": INSPECT, "ears": [2, 9]},
    ),
)
