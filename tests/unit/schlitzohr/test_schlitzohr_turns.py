"""The turn: roll, the choices after a 6 (move: see test_schlitzohr_moves), jokers, inspection.

Default helper position: ear i on start field i; ears 0-3 red, 4-7 blue,
8-11 green, 12-15 yellow. Seat 0 is red, seat 1 green (2 players).
"""

from __future__ import annotations

from math import comb
from typing import Any

import pytest
from schlitzohr_helpers import Dice, act, kinds, of_type, place, position

from engine.errors import WRONG_PHASE, RuleViolation
from engine.model import JSON
from engine.schlitzohr.game import GAME
from engine.schlitzohr.state import INSPECT, MOVING, SIX, START, State

# 14 ears home (all blue and yellow, three red, three green): only ears 3 and 11 stay face down.
NEARLY_DONE = {
    0: "c1",
    1: "d1",
    2: "f1",
    3: "b2",
    4: "a3",
    5: "a4",
    6: "a6",
    7: "a7",
    8: "c9",
    9: "d9",
    10: "f9",
    11: "b8",
    12: "i3",
    13: "i4",
    14: "i6",
    15: "i7",
}


def code_of(state: State, seat: int, command: JSON, *dice: int) -> str:
    with pytest.raises(RuleViolation) as err:
        GAME.decide(state, seat, command, Dice(*dice))
    return err.value.code


def rolled_six(**kwargs: Any) -> State:
    state, _ = act(position(**kwargs), 0, {"kind": "roll"}, 6)
    return state


def test_roll_one_to_five_means_moving() -> None:
    state, events = act(position(), 0, {"kind": "roll"}, 5)
    assert kinds(events) == ["DieRolled"] and (state.phase, state.pips) == (MOVING, 5)
    assert state.last_roll == ("turn", 5)


def test_die_purposes_are_unique_per_turn() -> None:
    dice = Dice(6, 2, 1)
    GAME.decide(position(turn=7), 0, {"kind": "roll"}, dice)
    GAME.decide(position(turn=7, phase=SIX, pips=6), 0, {"kind": "peek"}, dice)
    GAME.decide(position(turn=8, active=1), 1, {"kind": "joker"}, dice)
    assert dice.purposes == ["t7/roll", "t7/peek", "t8/joker"]


def test_six_then_peek_then_inspect() -> None:
    state = rolled_six()
    state, events = act(state, 0, {"kind": "peek"}, 4)
    assert events[0].data == {"seat": 0, "value": 4, "purpose": "peek"}
    assert (state.phase, state.inspect_count) == (INSPECT, 4)
    assert GAME.to_act(state) == {0: ("inspect",)}
    legal = GAME.legal_commands(state, 0)
    assert len(legal) == comb(16, 4) and legal[0] == {"kind": "inspect", "ears": [0, 1, 2, 3]}
    state, events = act(state, 0, {"kind": "inspect", "ears": [0, 5, 9, 15]})
    assert kinds(events) == ["EarsInspected", "TurnEnded"]
    seen = events[0]
    assert seen.data == {"seat": 0, "ears": [0, 5, 9, 15]}
    assert seen.private == {"colours": {"0": "red", "5": "blue", "9": "green", "15": "yellow"}}
    assert seen.visible_to == (0,) and not seen.is_visible_to(1) and not seen.is_visible_to(None)
    assert state.known[0] == {0, 5, 9, 15} and state.known[1] == frozenset()
    assert (state.active, state.phase) == (1, START)


def test_inspect_count_is_capped_at_the_face_down_ears() -> None:
    state, _ = act(position(fields=NEARLY_DONE), 0, {"kind": "joker"}, 5)
    assert state.inspect_count == 2
    assert GAME.legal_commands(state, 0) == [{"kind": "inspect", "ears": [3, 11]}]
    assert code_of(state, 0, {"kind": "inspect", "ears": [3]}) == "wrong_inspect_count"
    assert code_of(state, 0, {"kind": "inspect", "ears": [0, 3]}) == "ear_face_up"


def test_inspect_list_checks() -> None:
    state = position(phase=INSPECT, inspect_count=2)
    assert code_of(state, 0, {"kind": "inspect", "ears": [4, 4]}) == "duplicate_ear"
    assert code_of(state, 0, {"kind": "inspect", "ears": [5, 4]}) == "ears_not_ascending"
    assert code_of(state, 0, {"kind": "inspect", "ears": [4, 16]}) == "unknown_ear"
    assert code_of(state, 0, {"kind": "inspect", "ears": [1, 2, 3]}) == "wrong_inspect_count"
    assert code_of(state, 0, {"kind": "inspect", "ears": ["1", 2]}) == "malformed_command"


def test_place_own_colour_stays() -> None:
    state, events = act(
        rolled_six(), 0, place(0, "d1")
    )  # ear 0 is red: never inspected, still allowed
    assert kinds(events) == ["EarPlaced", "EarRevealed", "TurnEnded"]
    assert events[0].data == {"seat": 0, "ear": 0, "from": "c3", "to": "d1"}
    assert state.board.names[state.pos[0]] == "d1" and state.home[0] == 1


def test_place_wrong_colour_is_relocated() -> None:
    state, events = act(rolled_six(fields={8: "c9"}), 0, place(9, "c1"))  # ear 9 is green; c9 taken
    assert kinds(events) == ["EarPlaced", "EarRevealed", "EarRelocated", "TurnEnded"]
    assert events[1].data == {"ear": 9, "field": "c1", "colour": "green"}
    assert events[2].data == {"ear": 9, "from": "c1", "to": "d9"}
    assert state.home == (0, 0, 2, 0)


def test_place_checks() -> None:
    state = rolled_six(fields={1: "c1"})
    assert code_of(state, 0, place(0, "c9")) == "not_own_target"  # green's target
    assert code_of(state, 0, place(0, "b2")) == "not_own_target"  # a grey field
    assert code_of(state, 0, place(0, "c1")) == "target_not_free"
    assert code_of(state, 0, place(1, "d1")) == "ear_face_up"
    assert code_of(position(), 0, place(0, "c1")) == WRONG_PHASE
    assert code_of(position(phase=MOVING, pips=3), 0, place(0, "c1")) == WRONG_PHASE


def test_six_lists_move_peek_and_place() -> None:
    legal = GAME.legal_commands(rolled_six(), 0)
    assert {"kind": "peek"} in legal
    places = [c for c in legal if c["kind"] == "place"]
    assert len(places) == 16 * 4 and {c["to"] for c in places} == {"c1", "d1", "f1", "g1"}
    assert any(c["kind"] == "move" for c in legal)


def test_peek_only_after_a_six() -> None:
    assert code_of(position(), 0, {"kind": "peek"}) == WRONG_PHASE
    assert code_of(position(phase=MOVING, pips=2), 0, {"kind": "peek"}) == WRONG_PHASE


def test_joker_is_spent_and_lets_the_seat_inspect() -> None:
    state, events = act(position(), 0, {"kind": "joker"}, 3)
    assert kinds(events) == ["JokerUsed", "DieRolled"]
    assert events[0].data == {"seat": 0, "jokers_left": 2}
    assert events[1].data == {"seat": 0, "value": 3, "purpose": "joker"}
    assert (state.phase, state.inspect_count, state.jokers_left) == (INSPECT, 3, (2, 3))
    state, events = act(state, 0, {"kind": "inspect", "ears": [1, 2, 3]})
    assert kinds(events) == ["EarsInspected", "TurnEnded"] and GAME.is_material_conserved(state)


def test_joker_six_comes_back() -> None:
    state, events = act(position(), 0, {"kind": "joker"}, 6)
    assert kinds(events) == ["JokerUsed", "DieRolled", "JokerReturned"]
    assert events[2].data == {"seat": 0, "jokers_left": 3}
    assert (state.jokers_left[0], state.jokers_used[0], state.jokers_returned[0]) == (3, 1, 1)
    assert state.inspect_count == 6 and GAME.is_material_conserved(state)


def test_joker_six_stays_spent_with_the_option_off() -> None:
    state, events = act(position(joker_six_returns=False), 0, {"kind": "joker"}, 6)
    assert kinds(events) == ["JokerUsed", "DieRolled"] and state.jokers_left[0] == 2


def test_no_jokers_left() -> None:
    state = position(jokers_left=(0, 3))
    assert GAME.to_act(state) == {0: ("roll",)}
    assert GAME.legal_commands(state, 0) == [{"kind": "roll"}]
    assert code_of(state, 0, {"kind": "joker"}) == "no_jokers_left"


def test_joker_only_at_turn_start() -> None:
    assert code_of(rolled_six(), 0, {"kind": "joker"}) == WRONG_PHASE
    assert code_of(position(phase=MOVING, pips=1), 0, {"kind": "joker"}) == WRONG_PHASE


def test_turn_passes_clockwise_and_wraps() -> None:
    state = position(3, fields={0: "b2"}, active=2, phase=MOVING, pips=1)
    state, events = act(state, 2, {"kind": "move", "ear": 0, "to": "b1"})
    assert of_type(events, "TurnEnded")[0].data == {"seat": 2, "next_seat": 0, "turn": 2}
    assert GAME.to_act(state) == {0: ("roll", "joker")}
