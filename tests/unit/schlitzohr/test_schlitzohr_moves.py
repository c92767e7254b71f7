"""Moving: one step per command, straight lines, blocking, targets, reveals, relocation.

Default helper position: ear i on start field i (c3 d3 e3 f3 g3 c4 g4 c5 g5 c6 g6
c7 d7 e7 f7 g7); ears 0-3 red, 4-7 blue, 8-11 green, 12-15 yellow.
"""

from __future__ import annotations

import pytest
from schlitzohr_helpers import PEN, act, kinds, of_type, position, step

from engine.errors import WRONG_PHASE, RuleViolation
from engine.model import JSON
from engine.schlitzohr.game import GAME
from engine.schlitzohr.state import MOVING, SIX, START, State


def code_of(state: State, seat: int, command: JSON) -> str:
    with pytest.raises(RuleViolation) as err:
        act(state, seat, command)
    return err.value.code


def _legal(state: State) -> list[JSON]:
    return GAME.legal_commands(state, state.active)


def _to_act(state: State) -> dict[int, tuple[str, ...]]:
    return GAME.to_act(state)


def test_step_to_a_free_grey_field() -> None:
    state = position(fields={0: "b2"}, phase=MOVING, pips=3)
    after, events = act(state, 0, step(0, "b4"))
    assert kinds(events) == ["EarMoved"]
    assert events[0].data == {"seat": 0, "ear": 0, "from": "b2", "to": "b4", "pips": 2}
    assert after.board.names[after.pos[0]] == "b4" and (after.phase, after.pips) == (MOVING, 1)


def test_step_blocked_by_an_ear_on_the_way_or_at_the_end() -> None:
    state = position(fields={0: "b2", 1: "d2"}, phase=MOVING, pips=4)
    assert code_of(state, 0, step(0, "e2")) == "step_blocked"
    assert code_of(state, 0, step(0, "d2")) == "step_blocked"
    act(state, 0, step(0, "c2"))  # up to the ear is fine


def test_step_onto_a_blocked_field() -> None:
    assert (
        code_of(position(fields={0: "e2"}, phase=MOVING, pips=1), 0, step(0, "e1"))
        == "step_blocked"
    )
    assert (
        code_of(position(fields={0: "b5"}, phase=MOVING, pips=1), 0, step(0, "a5"))
        == "step_blocked"
    )


def test_step_may_not_pass_through_a_target() -> None:
    state = position(fields={0: "b1"}, phase=MOVING, pips=3)
    assert code_of(state, 0, step(0, "d1")) == "step_through_target"
    assert {"kind": "move", "ear": 0, "to": "d1"} not in _legal(state)


def test_step_may_end_on_a_free_target_and_the_right_colour_stays() -> None:
    state = position(fields={0: "b1"}, phase=MOVING, pips=3)  # ear 0 is red
    after, events = act(state, 0, step(0, "c1"))
    assert kinds(events) == ["EarMoved", "EarRevealed"]
    assert events[1].data == {"ear": 0, "field": "c1", "colour": "red"}
    assert after.board.names[after.pos[0]] == "c1" and 0 in after.revealed
    assert (after.phase, after.pips) == (MOVING, 2)  # the remaining pips are still to be used


def test_step_may_not_end_on_an_occupied_target() -> None:
    state = position(fields={0: "b1", 1: "c1"}, phase=MOVING, pips=1)
    assert code_of(state, 0, step(0, "c1")) == "step_blocked"


def test_wrong_colour_goes_to_the_first_free_target_of_its_colour() -> None:
    state = position(fields={4: "b1"}, phase=MOVING, pips=1)  # ear 4 is blue
    after, events = act(state, 0, step(4, "c1"))
    assert kinds(events)[:3] == ["EarMoved", "EarRevealed", "EarRelocated"]
    assert events[1].data["colour"] == "blue"
    assert events[2].data == {"ear": 4, "from": "c1", "to": "a3"}
    assert after.board.names[after.pos[4]] == "a3" and after.occ[after.board.index["c1"]] == -1


def test_relocation_skips_taken_targets_in_edge_order() -> None:
    state = position(fields={4: "b1", 5: "a3", 6: "a4"}, phase=MOVING, pips=1)
    _, events = act(state, 0, step(4, "c1"))
    assert of_type(events, "EarRelocated")[0].data["to"] == "a6"


def test_not_straight_or_empty_step() -> None:
    state = position(fields={0: "b2"}, phase=MOVING, pips=3)
    assert code_of(state, 0, step(0, "c3")) == "step_not_straight"  # diagonal
    assert code_of(state, 0, step(0, "b2")) == "step_not_straight"  # no movement


def test_step_longer_than_the_pips_left() -> None:
    assert (
        code_of(position(fields={0: "b2"}, phase=MOVING, pips=2), 0, step(0, "b5"))
        == "step_too_long"
    )


def test_the_whole_roll_must_be_used() -> None:
    state = position(fields={0: "b2"})
    state, events = act(state, 0, {"kind": "roll"}, 3)
    assert events[0].data == {"seat": 0, "value": 3, "purpose": "turn"}
    state, _ = act(state, 0, step(0, "c2"))
    assert (state.phase, state.pips, state.active) == (MOVING, 2, 0)
    assert _to_act(state) == {0: ("move",)}
    assert code_of(state, 0, {"kind": "roll"}) == WRONG_PHASE
    state, events = act(state, 0, step(0, "e2"))
    assert kinds(events) == ["EarMoved", "TurnEnded"]
    assert events[-1].data == {"seat": 0, "next_seat": 1, "turn": 2}
    assert (state.phase, state.active, state.turn) == (START, 1, 2)


def test_the_same_ear_may_turn_a_corner_between_steps() -> None:
    state = position(fields={0: "b2"}, phase=MOVING, pips=4)
    state, _ = act(state, 0, step(0, "c2"))  # east
    state, _ = act(state, 0, step(0, "c3"))  # north, onto its vacated start field
    assert state.board.names[state.pos[0]] == "c3" and state.pips == 2


def test_steps_are_legal_in_the_order_given() -> None:
    state = position(fields={0: "b2", 1: "d2"}, phase=MOVING, pips=4)
    assert code_of(state, 0, step(0, "e2")) == "step_blocked"
    state, _ = act(state, 0, step(1, "d3"))  # the blocker leaves first
    state, events = act(state, 0, step(0, "e2"))
    assert kinds(events) == ["EarMoved", "TurnEnded"]


def test_ears_on_targets_never_move_again() -> None:
    state = position(fields={1: "c1"}, phase=MOVING, pips=2)
    assert code_of(state, 0, step(1, "c2")) == "ear_not_movable"
    assert all(command["ear"] != 1 for command in _legal(state))


def test_any_seat_may_move_any_grey_ear() -> None:
    state = position(fields={0: "b2"}, active=1, phase=MOVING, pips=1)  # ear 0 is red, seat 1 green
    _, events = act(state, 1, step(0, "b1"))
    assert events[0].data["seat"] == 1


def test_six_allows_a_move_of_six_pips() -> None:
    state, _ = act(position(fields={0: "b2"}), 0, {"kind": "roll"}, 6)
    assert (state.phase, state.pips) == (SIX, 6)
    assert _to_act(state) == {0: ("move", "peek", "place")}
    state, events = act(state, 0, step(0, "b8"))
    assert events[0].data["pips"] == 6 and kinds(events) == ["EarMoved", "TurnEnded"]


def test_no_legal_step_after_the_roll_passes() -> None:
    # Test layout: 15 ears fill the closed pen, ear 15 (yellow) is home on f4.
    state = position(board=PEN, fields={15: "f4"})
    state, events = act(state, 0, {"kind": "roll"}, 4)
    assert kinds(events) == ["DieRolled", "MoveEnded", "TurnEnded"]
    assert events[1].data == {"seat": 0, "pips_left": 4, "reason": "no_legal_step"}
    assert (state.active, state.phase) == (1, START)


def test_move_ends_early_when_no_step_is_left() -> None:
    state = position(board=PEN)  # ear 15 on e4, next to the free target f4
    state, _ = act(state, 0, {"kind": "roll"}, 3)
    assert _legal(state) == [step(15, "f4")]
    state, events = act(state, 0, step(15, "f4"))
    assert kinds(events) == ["EarMoved", "EarRevealed", "MoveEnded", "TurnEnded"]
    assert events[2].data["pips_left"] == 2 and state.active == 1


def test_legal_steps_are_exact_for_one_ear() -> None:
    # From b1 with 2 pips: west a1, north b2 and b3, east only onto the target c1.
    state = position(fields={0: "b1"}, phase=MOVING, pips=2)
    ends = sorted(c["to"] for c in _legal(state) if c["ear"] == 0)
    assert ends == ["a1", "b2", "b3", "c1"]
