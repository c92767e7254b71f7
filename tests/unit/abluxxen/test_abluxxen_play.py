"""Playing a set and who gets abluxxed (rules: A turn, steps 1-3)."""

from __future__ import annotations

import pytest
from abluxxen_positions import hand, position, step, types

from engine.abluxxen.game import GAME
from engine.abluxxen.sets import CardSet, abluxxes
from engine.abluxxen.state import BONUS, CHOOSE, OVER
from engine.model import Result


def play(number: int | None, count: int, jokers: int = 0) -> dict:
    return {"kind": "play", "number": number, "count": count, "jokers": jokers}


def test_play_moves_cards_from_hand_onto_own_row_as_new_top() -> None:
    s = position(hands={0: [4, 4, 4, 9]}, rows={0: [(2, 1, 0)]})
    s, events = step(s, 0, play(4, 2))
    assert hand(s, 0) == [4, 9]
    assert s.rows[0] == (CardSet(2, 1, 0), CardSet(4, 2, 0))
    assert events[0].data == {"seat": 0, "set": {"number": 4, "count": 2, "jokers": 0}}
    assert s.turn == 1


def test_jokers_join_and_take_the_number() -> None:
    s = position(hands={0: [5, 5, "X", 9]}, rows={1: [(4, 3, 0)], 2: [(6, 3, 0)]})
    s, events = step(s, 0, play(5, 2, 1))
    assert hand(s, 0) == [9]
    assert CardSet(5, 2, 1).value == 5
    # worth 5 with 3 cards: beats the 4s of seat 1, not the 6s of seat 2
    assert events[1].type == "Abluxxed" and events[1].data["victims"] == [1]


def test_all_joker_set_beats_a_set_of_13s_of_the_same_size() -> None:
    s = position(hands={0: ["X", "X", 1]}, rows={1: [(13, 1, 1)]})
    s, events = step(s, 0, play(None, 0, 2))
    assert types(events)[:3] == ["SetPlayed", "Abluxxed", "SetRemoved"]
    assert events[1].data["victims"] == [1]
    assert abluxxes(CardSet(None, 0, 2), CardSet(13, 2, 0))


def test_all_joker_set_never_abluxxes_an_all_joker_set() -> None:
    s = position(hands={0: ["X", "X", 1]}, rows={1: [(None, 0, 2)]})
    s, events = step(s, 0, play(None, 0, 2))
    assert "Abluxxed" not in types(events)
    assert not abluxxes(CardSet(None, 0, 2), CardSet(None, 0, 2))


@pytest.mark.parametrize("top", [(7, 2, 0), (7, 1, 1)])
def test_equal_sets_do_not_abluxx(top: tuple) -> None:
    s = position(hands={0: [7, 7, 1]}, rows={1: [top]})
    s, events = step(s, 0, play(7, 2))
    assert "Abluxxed" not in types(events)
    assert s.rows[1] == (CardSet(*top),)


@pytest.mark.parametrize("top", [(3, 3, 0), (3, 1, 0), (2, 1, 2)])
def test_sets_of_different_size_do_not_abluxx(top: tuple) -> None:
    s = position(hands={0: [9, 9, 1]}, rows={1: [top]})
    s, events = step(s, 0, play(9, 2))
    assert "Abluxxed" not in types(events)


def test_a_higher_set_is_not_abluxxed_by_a_lower_one() -> None:
    s = position(hands={0: [5, 5, 1]}, rows={1: [(6, 2, 0)]})
    s, events = step(s, 0, play(5, 2))
    assert "Abluxxed" not in types(events)


def test_only_the_top_set_of_a_row_counts() -> None:
    s = position(hands={0: [5, 5, 1]}, rows={1: [(3, 2, 0), (10, 2, 0)], 2: []})
    s, events = step(s, 0, play(5, 2))
    assert "Abluxxed" not in types(events)
    assert s.phase == BONUS


def test_victims_are_every_qualifying_opponent_clockwise_from_the_active_seat() -> None:
    rows = {0: [(2, 2, 0)], 1: [(3, 2, 0)], 3: [(4, 2, 0)], 2: [(1, 1, 0)]}
    s = position(4, hands={2: [8, 8, 1]}, rows=rows, active=2)
    s, events = step(s, 2, play(8, 2))
    assert events[1].data == {"seat": 2, "victims": [3, 0, 1]}
    # Only the first victim's set leaves its row now; the others follow in turn.
    assert events[2].data == {"seat": 3, "set": {"number": 4, "count": 2, "jokers": 0}}
    assert s.rows[3] == () and s.rows[0] == (CardSet(2, 2, 0),)
    assert (s.phase, s.victim, s.victims) == (CHOOSE, 3, (0, 1))
    assert s.limbo == CardSet(4, 2, 0)


def test_the_victims_previous_set_becomes_its_top_set_again() -> None:
    s = position(hands={0: [6, 6, 1]}, rows={1: [(9, 3, 0), (4, 2, 0)]})
    s, _ = step(s, 0, play(6, 2))
    assert s.rows[1] == (CardSet(9, 3, 0),)


def test_playing_the_last_hand_card_ends_the_game_at_once_without_abluxx() -> None:
    s = position(hands={0: [8, 8], 1: [1, 2, 3], 2: [4]}, rows={1: [(2, 2, 0)], 2: [(5, 1, 0)]})
    s, events = step(s, 0, play(8, 2))
    assert types(events) == ["SetPlayed", "DealEnded", "GameEnded"]
    assert s.rows[1] == (CardSet(2, 2, 0),)  # would have been abluxxed, but was not
    assert s.phase == OVER
    assert events[1].data["reason"] == "last_card_played"
    assert events[2].data == {
        "reason": "last_card_played",
        "scores": [2, -1, 0],
        "winners": [0],
        "turns": 1,
    }
    assert GAME.result(s) == Result((2, -1, 0), (0,), "last_card_played", 1)


def test_legal_plays_are_every_set_the_hand_can_form() -> None:
    s = position(hands={0: [5, 5, "X", 9]})
    assert GAME.legal_commands(s, 0) == [
        play(5, 1, 0),
        play(5, 1, 1),
        play(5, 2, 0),
        play(5, 2, 1),
        play(9, 1, 0),
        play(9, 1, 1),
        play(None, 0, 1),
    ]
    assert GAME.legal_commands(s, 1) == []
