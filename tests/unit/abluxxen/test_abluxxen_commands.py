"""Malformed and misplaced commands: each raises RuleViolation with its stable code."""

from __future__ import annotations

from typing import Any

import pytest
from abluxxen_positions import position, rng, step

from engine.abluxxen.game import GAME
from engine.abluxxen.state import State
from engine.errors import RuleViolation

PLAYING = position(hands={0: [5, 5, "X", 9], 1: [1, 2], 2: [3]}, rows={1: [(4, 2, 0)]})


def code_of(state: State, seat: Any, command: Any) -> str:
    with pytest.raises(RuleViolation) as err:
        GAME.decide(state, seat, command, rng())
    return err.value.code


def play(**fields: Any) -> dict:
    return {"kind": "play", "number": 5, "count": 1, "jokers": 0} | fields


@pytest.mark.parametrize(
    "command",
    [
        None,
        [],
        "play",
        5,
        {},
        {"kind": 5},
        {"kind": None},
        {k: v for k, v in play().items() if k != "number"},
        {k: v for k, v in play().items() if k != "jokers"},
        play(extra=1),
        play(number="5"),
        play(number=5.0),
        play(number=True),
        play(number=0),
        play(number=14),
        play(count=True),
        play(count=-1),
        play(count=9),
        play(count="1"),
        play(jokers=6),
        play(jokers=None),
        play(jokers=False),
    ],
)
def test_malformed_commands(command: Any) -> None:
    assert code_of(PLAYING, 0, command) == "malformed_command"


def test_extra_keys_of_mixed_types_are_malformed_not_a_crash() -> None:
    assert code_of(PLAYING, 0, play() | {1: 2, "x": 3}) == "malformed_command"


def test_unknown_kind() -> None:
    assert code_of(PLAYING, 0, {"kind": "fly"}) == "unknown_command"
    assert code_of(PLAYING, 0, {"kind": "Play"}) == "unknown_command"


@pytest.mark.parametrize(
    "fields",
    [
        {"number": None, "count": 1, "jokers": 1},
        {"count": 0, "jokers": 1},
        {"number": None, "count": 0},
    ],
)
def test_invalid_sets(fields: dict) -> None:
    assert code_of(PLAYING, 0, play(**fields)) == "invalid_set"


@pytest.mark.parametrize(
    "fields",
    [{"count": 3}, {"jokers": 2}, {"number": 7}, {"number": None, "count": 0, "jokers": 2}],
)
def test_cards_not_in_hand(fields: dict) -> None:
    assert code_of(PLAYING, 0, play(**fields)) == "cards_not_in_hand"


@pytest.mark.parametrize("seat", [3, -1, True, "0", None, 0.0])
def test_invalid_seat(seat: Any) -> None:
    assert code_of(PLAYING, seat, play()) == "invalid_seat"


def test_out_of_turn_and_wrong_phase() -> None:
    assert code_of(PLAYING, 1, play()) == "not_your_turn"
    assert code_of(PLAYING, 0, {"kind": "take", "victim": 1}) == "wrong_phase"
    assert code_of(PLAYING, 0, {"kind": "pass"}) == "wrong_phase"
    assert code_of(PLAYING, 0, {"kind": "draw", "from": "pile"}) == "wrong_phase"


def test_after_the_end_every_command_is_game_over() -> None:
    over, _ = step(position(hands={0: [5]}), 0, play())
    assert GAME.result(over) is not None
    assert code_of(over, 0, play()) == "game_over"
    assert code_of(over, 1, {"kind": "nonsense"}) == "game_over"
    assert all(GAME.legal_commands(over, seat) == [] for seat in range(3))


def test_take_and_leave_fields() -> None:
    choosing, _ = step(PLAYING, 0, play(count=2))
    assert GAME.to_act(choosing) == {0: ("take", "leave")}
    malformed = [
        {"kind": "take"},
        {"kind": "take", "victim": "1"},
        {"kind": "leave", "victim": True},
        {"kind": "take", "victim": 3},
        {"kind": "take", "victim": 1, "x": 0},
    ]
    for bad in malformed:
        assert code_of(choosing, 0, bad) == "malformed_command"
    assert code_of(choosing, 0, {"kind": "take", "victim": 2}) == "wrong_victim"
    reclaiming, _ = step(choosing, 0, {"kind": "leave", "victim": 1})
    assert code_of(reclaiming, 1, {"kind": "take_back", "victim": 1}) == "malformed_command"
    assert code_of(reclaiming, 1, {"kind": "discard", "all": True}) == "malformed_command"


@pytest.mark.parametrize(
    "command",
    [
        {"kind": "draw"},
        {"kind": "draw", "from": "hand"},
        {"kind": "draw", "from": None},
        {"kind": "draw", "from": "display"},
        {"kind": "draw", "from": "display", "card": 0},
        {"kind": "draw", "from": "display", "card": "x"},
        {"kind": "draw", "from": "display", "card": True},
        {"kind": "draw", "from": "display", "card": 7, "extra": 1},
        {"kind": "draw", "from": "pile", "card": 7},
        {"kind": "pass", "now": True},
    ],
)
def test_malformed_draws_and_pass(command: dict) -> None:
    bonus, _ = step(position(hands={0: [5, 9]}, display=[7]), 0, play())
    assert code_of(bonus, 0, command) == "malformed_command"


def test_decide_leaves_the_state_untouched() -> None:
    before = position(hands={0: [5, 5, "X", 9], 1: [1, 2], 2: [3]}, rows={1: [(4, 2, 0)]})
    GAME.decide(before, 0, play(count=2), rng())
    assert before == PLAYING
