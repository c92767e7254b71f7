"""The end of the game (all ears home, turn cap), neutral colours and scoring.

Default helper position: ear i on start field i; ears 0-3 red, 4-7 blue,
8-11 green, 12-15 yellow. Seats: 2p red/green, 3p red/blue/green, 4p all.
"""

from __future__ import annotations

import pytest
from schlitzohr_helpers import act, kinds, of_type, place, position, step

from engine.errors import GAME_OVER, RuleViolation
from engine.playout import play
from engine.rng import SeededRandom
from engine.schlitzohr.game import GAME
from engine.schlitzohr.state import MOVING, OVER, State

RED_THREE_HOME = {0: "c1", 1: "d1", 2: "g1"}


def ended(state: State) -> None:
    assert GAME.to_act(state) == {} and state.phase == OVER
    assert all(GAME.legal_commands(state, seat) == [] for seat in range(state.players))
    with pytest.raises(RuleViolation) as err:
        GAME.decide(state, state.active, {"kind": "roll"}, SeededRandom(b"x", "t"))
    assert err.value.code == GAME_OVER


def test_game_ends_at_once_mid_move() -> None:
    state = position(fields={**RED_THREE_HOME, 3: "f2"}, phase=MOVING, pips=4)
    state, events = act(state, 0, step(3, "f1"))
    assert kinds(events) == ["EarMoved", "EarRevealed", "GameEnded"]  # 3 pips void, no TurnEnded
    assert events[-1].data == {
        "reason": "all_ears_home",
        "scores": [26, 6],
        "winners": [0],
        "turns": 1,
    }
    assert GAME.result(state).to_json() == events[-1].data  # type: ignore[union-attr]
    assert state.pips == 0
    ended(state)


def test_a_relocation_can_complete_a_colour() -> None:
    state = position(fields={0: "c1", 1: "d1", 2: "f1", 3: "b9"}, active=1, phase=MOVING, pips=2)
    state, events = act(state, 1, step(3, "c9"))  # seat 1 walks red ear 3 onto green's target
    assert kinds(events) == ["EarMoved", "EarRevealed", "EarRelocated", "GameEnded"]
    assert of_type(events, "EarRelocated")[0].data["to"] == "g1"
    assert state.result is not None and state.result.winners == (0,)


def test_a_placement_can_complete_a_colour() -> None:
    state, _ = act(position(fields=RED_THREE_HOME), 0, {"kind": "roll"}, 6)
    state, events = act(state, 0, place(3, "f1"))
    assert kinds(events) == ["EarPlaced", "EarRevealed", "GameEnded"]


@pytest.mark.parametrize(
    ("players", "ears", "field"),
    [
        (2, {4: "a3", 5: "a4", 6: "a6", 7: "b7"}, "a7"),
        (3, {12: "i3", 13: "i4", 14: "i6", 15: "h7"}, "i7"),
    ],
)
def test_neutral_colours_end_nothing_and_score_for_nobody(
    players: int, ears: dict[int, str], field: str
) -> None:
    mover = max(ears)
    state = position(players, fields=ears, phase=MOVING, pips=1)
    state, events = act(state, 0, step(mover, field))
    assert kinds(events) == ["EarMoved", "EarRevealed", "TurnEnded"]
    assert state.home == ((0, 4, 0, 0) if players == 2 else (0, 0, 0, 4))
    assert GAME.scores(state) == (6,) * players  # jokers only


def test_an_owned_colour_of_three_players_does_end_the_game() -> None:
    state = position(3, fields={4: "a3", 5: "a4", 6: "a6", 7: "b7"}, phase=MOVING, pips=1)
    state, events = act(state, 0, step(7, "a7"))  # blue belongs to seat 1 with 3 players
    assert events[-1].data["scores"] == [6, 26, 6] and events[-1].data["winners"] == [1]


def test_turn_cap_ends_the_game_after_the_capped_turn() -> None:
    before_cap = position(fields={0: "b2"}, phase=MOVING, pips=1, turn=9, turn_cap=10)
    _, events = act(before_cap, 0, step(0, "b1"))
    assert kinds(events) == ["EarMoved", "TurnEnded"]
    at_cap = position(fields={0: "b2"}, phase=MOVING, pips=1, turn=10, turn_cap=10)
    state, events = act(at_cap, 0, step(0, "b1"))
    assert kinds(events) == ["EarMoved", "GameEnded"]
    assert events[-1].data == {
        "reason": "turn_cap",
        "scores": [6, 6],
        "winners": [0, 1],
        "turns": 10,
    }
    ended(state)


def test_turn_cap_in_a_full_game_counts_every_seats_turn() -> None:
    for seed in (b"a", b"b", b"c"):
        game = play(GAME, 3, seed, {"turn_cap": 10})
        assert game.result.turns <= 10
        turn_ends = len(of_type(game.events, "TurnEnded"))
        assert turn_ends == game.result.turns - 1
        if game.result.reason == "turn_cap":
            assert game.result.turns == 10


def test_scoring_five_per_ear_home_two_per_joker() -> None:
    state = position(
        4,
        fields={0: "c1", 1: "d1", 4: "a3", 12: "i3", 13: "i4", 14: "i6"},
        jokers_left=(1, 0, 3, 2),
    )
    assert GAME.scores(state) == (12, 5, 6, 19)


def test_equal_totals_share_the_win() -> None:
    state = position(
        fields={0: "c1", 8: "c9"}, phase=MOVING, pips=1, turn=10, turn_cap=10, jokers_left=(2, 2)
    )
    state, events = act(state, 0, step(9, "b6"))
    assert events[-1].data["scores"] == [9, 9] and events[-1].data["winners"] == [0, 1]
    assert state.result is not None and state.result.winners == (0, 1)


def test_highest_total_wins_even_if_another_colour_completed() -> None:
    fields = {**RED_THREE_HOME, 3: "f2", 8: "c9", 9: "d9", 10: "f9"}
    state = position(fields=fields, phase=MOVING, pips=1, jokers_left=(0, 3))
    state, events = act(state, 0, step(3, "f1"))
    assert events[-1].data["scores"] == [20, 21] and events[-1].data["winners"] == [1]
    assert (
        state.phase == OVER and state.result is not None and state.result.reason == "all_ears_home"
    )
