"""Malformed and misplaced commands: always a RuleViolation with the right code.

Messages and details must never name a colour (they could leak a hidden one).
"""

from __future__ import annotations

from typing import Any

import pytest
from schlitzohr_helpers import Dice, position

from engine.errors import RuleViolation
from engine.schlitzohr.game import GAME
from engine.schlitzohr.material import COLOURS
from engine.schlitzohr.state import INSPECT, MOVING, SIX, State

START_STATE = position()
MOVING_STATE = position(fields={0: "b2"}, phase=MOVING, pips=3)
SIX_STATE = position(phase=SIX, pips=6)
INSPECT_STATE = position(phase=INSPECT, inspect_count=2)


def violation(state: State, seat: Any, command: Any) -> RuleViolation:
    before = state
    with pytest.raises(RuleViolation) as err:
        GAME.decide(state, seat, command, Dice(1))
    assert state == before
    text = f"{err.value.message} {err.value.details}".lower()
    assert not any(colour in text for colour in COLOURS), text
    return err.value


@pytest.mark.parametrize(
    ("state", "command", "code"),
    [
        (START_STATE, None, "malformed_command"),
        (START_STATE, [], "malformed_command"),
        (START_STATE, "roll", "malformed_command"),
        (START_STATE, 7, "malformed_command"),
        (START_STATE, {}, "malformed_command"),
        (START_STATE, {"kind": 1}, "malformed_command"),
        (START_STATE, {"kind": None}, "malformed_command"),
        (START_STATE, {"kind": "fly"}, "unknown_command"),
        (START_STATE, {"kind": "ROLL"}, "unknown_command"),
        (START_STATE, {"kind": "roll", "value": 6}, "malformed_command"),
        (START_STATE, {"kind": "joker", "n": 1}, "malformed_command"),
        (SIX_STATE, {"kind": "peek", "ears": []}, "malformed_command"),
        (MOVING_STATE, {"kind": "move", "ear": 0}, "malformed_command"),
        (MOVING_STATE, {"kind": "move", "to": "b3"}, "malformed_command"),
        (MOVING_STATE, {"kind": "move", "ear": 0, "to": "b3", "pips": 1}, "malformed_command"),
        (MOVING_STATE, {"kind": "move", "ear": True, "to": "b3"}, "malformed_command"),
        (MOVING_STATE, {"kind": "move", "ear": False, "to": "b3"}, "malformed_command"),
        (MOVING_STATE, {"kind": "move", "ear": "0", "to": "b3"}, "malformed_command"),
        (MOVING_STATE, {"kind": "move", "ear": 0.0, "to": "b3"}, "malformed_command"),
        (MOVING_STATE, {"kind": "move", "ear": None, "to": "b3"}, "malformed_command"),
        (MOVING_STATE, {"kind": "move", "ear": 16, "to": "b3"}, "unknown_ear"),
        (MOVING_STATE, {"kind": "move", "ear": -1, "to": "b3"}, "unknown_ear"),
        (MOVING_STATE, {"kind": "move", "ear": 10**30, "to": "b3"}, "unknown_ear"),
        (MOVING_STATE, {"kind": "move", "ear": 0, "to": 12}, "malformed_command"),
        (MOVING_STATE, {"kind": "move", "ear": 0, "to": ["b3"]}, "malformed_command"),
        (MOVING_STATE, {"kind": "move", "ear": 0, "to": "j3"}, "unknown_field"),
        (MOVING_STATE, {"kind": "move", "ear": 0, "to": "b10"}, "unknown_field"),
        (MOVING_STATE, {"kind": "move", "ear": 0, "to": "b0"}, "unknown_field"),
        (MOVING_STATE, {"kind": "move", "ear": 0, "to": "B3"}, "unknown_field"),
        (MOVING_STATE, {"kind": "move", "ear": 0, "to": ""}, "unknown_field"),
        (SIX_STATE, {"kind": "place", "ear": 0}, "malformed_command"),
        (SIX_STATE, {"kind": "place", "ear": True, "to": "c1"}, "malformed_command"),
        (SIX_STATE, {"kind": "place", "ear": 99, "to": "c1"}, "unknown_ear"),
        (SIX_STATE, {"kind": "place", "ear": 0, "to": "z1"}, "unknown_field"),
        (INSPECT_STATE, {"kind": "inspect"}, "malformed_command"),
        (INSPECT_STATE, {"kind": "inspect", "ears": 3}, "malformed_command"),
        (INSPECT_STATE, {"kind": "inspect", "ears": "0,1"}, "malformed_command"),
        (INSPECT_STATE, {"kind": "inspect", "ears": [0, True]}, "malformed_command"),
        (INSPECT_STATE, {"kind": "inspect", "ears": [0, 1.0]}, "malformed_command"),
        (INSPECT_STATE, {"kind": "inspect", "ears": list(range(17))}, "malformed_command"),
        (INSPECT_STATE, {"kind": "inspect", "ears": [0, 16]}, "unknown_ear"),
        (INSPECT_STATE, {"kind": "inspect", "ears": [0, 1], "seat": 0}, "malformed_command"),
        (INSPECT_STATE, {"kind": "inspect", "ears": []}, "wrong_inspect_count"),
        (START_STATE, {"kind": "move", "ear": 0, "to": "b3"}, "wrong_phase"),
        (START_STATE, {"kind": "inspect", "ears": [0, 1]}, "wrong_phase"),
        (MOVING_STATE, {"kind": "roll"}, "wrong_phase"),
        (INSPECT_STATE, {"kind": "peek"}, "wrong_phase"),
        (SIX_STATE, {"kind": "roll"}, "wrong_phase"),
    ],
)
def test_bad_command(state: State, command: Any, code: str) -> None:
    assert violation(state, 0, command).code == code


@pytest.mark.parametrize("seat", [2, -1, 4, True, "0", None, 0.0])
def test_invalid_seat(seat: Any) -> None:
    assert violation(START_STATE, seat, {"kind": "roll"}).code == "invalid_seat"


def test_out_of_turn() -> None:
    err = violation(START_STATE, 1, {"kind": "roll"})
    assert err.code == "not_your_turn" and err.details == {"active_seat": 0}
    assert (
        violation(MOVING_STATE, 1, {"kind": "move", "ear": 0, "to": "b3"}).code == "not_your_turn"
    )
    assert GAME.legal_commands(MOVING_STATE, 1) == [] and GAME.to_act(MOVING_STATE) == {
        0: ("move",)
    }


def test_errors_about_hidden_ears_name_no_colour() -> None:
    # Placing a (hidden) blue ear is legal; only the reveal tells its colour.
    state = position(phase=SIX, pips=6, fields={1: "c1"})
    assert violation(state, 0, {"kind": "place", "ear": 4, "to": "c1"}).code == "target_not_free"
    assert violation(state, 0, {"kind": "place", "ear": 4, "to": "a3"}).code == "not_own_target"
