"""The option and command catalogue of Schlitzohr (served by the API, shown in docs)."""

from __future__ import annotations

from engine import fieldspec
from engine.model import CommandSpec, OptionSpec
from engine.schlitzohr.board import DEFAULT_LAYOUT, LAYOUTS
from engine.schlitzohr.material import EARS

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

EAR = fieldspec.integer(0, EARS - 1)
"""An ear id (``unknown_ear`` cannot happen for a value in this range)."""
_FIELD_NAMES = sorted(
    {n for board in LAYOUTS.values() for n in board.names}, key=lambda n: (n[0], int(n[1:]))
)
FIELD = fieldspec.FieldSpec({"type": "string", "enum": _FIELD_NAMES}, "field name")
"""A field of any layout's board (a name the game's own board lacks: ``unknown_field``)."""
TARGET = fieldspec.FieldSpec(FIELD.schema, "target field name")
EARS_LIST = fieldspec.ascending_list(EAR, EARS)

COMMAND_SPECS: tuple[CommandSpec, ...] = (
    CommandSpec(ROLL, "turn start: roll the die (1-5: move; 6: choose move, peek or place)"),
    CommandSpec(JOKER, "turn start, jokers left: spend a joker, roll, then inspect that many ears"),
    CommandSpec(
        MOVE,
        "one step of a move: an ear on a grey field goes 1..pips fields straight N/S/E/W",
        {"ear": EAR, "to": FIELD},
        {"kind": MOVE, "ear": 3, "to": "f5"},
    ),
    CommandSpec(PEEK, "after a 6: roll again, then inspect that many ears"),
    CommandSpec(
        PLACE,
        "after a 6: put a face-down ear on a free target field of your colour",
        {"ear": EAR, "to": TARGET},
        {"kind": PLACE, "ear": 7, "to": "c1"},
    ),
    CommandSpec(
        INSPECT,
        "look at exactly the announced number of distinct face-down ears, ids ascending",
        {"ears": EARS_LIST},
        {"kind": INSPECT, "ears": [2, 9]},
    ),
)
