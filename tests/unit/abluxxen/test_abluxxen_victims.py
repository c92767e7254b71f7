"""Resolving abluxxed sets: take or leave, take back or discard, drawing, refill (step 4, End)."""

from __future__ import annotations

import pytest
from abluxxen_positions import hand, position, step, types

from engine.abluxxen.game import GAME
from engine.abluxxen.sets import CardSet
from engine.abluxxen.state import CHOOSE, DRAW, OVER, PLAY, RECLAIM, State
from engine.errors import NOT_YOUR_TURN, WRONG_PHASE, RuleViolation

DISPLAY = [7, 7, 8, 9, 10, 11]


def abluxxed_position(**kw) -> State:
    """Seat 0 has just played 6,6 over seat 1's 3,3 (3 players); seat 0 must take or leave."""
    base = dict(
        hands={0: [6, 6, 1], 1: [2], 2: [4]},
        rows={1: [(3, 2, 0)]},
        display=DISPLAY,
        pile=[12, 13, 5],
    )
    base.update(kw)
    s, _ = step(position(**base), 0, {"kind": "play", "number": 6, "count": 2, "jokers": 0})
    assert (s.phase, s.victim) == (CHOOSE, 1)
    return s


def draw(source: str, card=None) -> dict:
    return {"kind": "draw", "from": source} | ({} if card is None else {"card": card})


def test_take_puts_the_set_into_the_active_hand_and_the_victim_owes_that_many_cards() -> None:
    s, events = step(abluxxed_position(), 0, {"kind": "take", "victim": 1})
    assert events[0].data == {"seat": 0, "victim": 1, "set": {"number": 3, "count": 2, "jokers": 0}}
    assert hand(s, 0) == [1, 3, 3]
    assert (s.phase, s.owed, s.limbo) == (DRAW, 2, None)
    assert GAME.to_act(s) == {1: ("draw",)}
    assert GAME.legal_commands(s, 1) == [draw("display", c) for c in (7, 8, 9, 10, 11)] + [
        draw("pile")
    ]
    assert GAME.legal_commands(s, 0) == []
    assert GAME.is_material_conserved(s)


def test_victim_draws_card_by_card_from_display_then_pile_and_refill_comes_after() -> None:
    s, _ = step(abluxxed_position(), 0, {"kind": "take", "victim": 1})
    s, events = step(s, 1, draw("display", 7))
    assert types(events) == ["CardDrawn"]
    assert events[0].data == {"seat": 1, "from": "display", "card": 7} and events[0].private is None
    assert s.display_size == 5  # not refilled between the victim's cards
    assert s.owed == 1
    s, events = step(s, 1, draw("pile"))
    assert types(events) == ["CardDrawn", "DisplayRefilled", "TurnPassed"]
    assert events[0].data == {"seat": 1, "from": "pile"}
    assert events[0].private == {"card": 12} and events[0].visible_to == (1,)
    assert events[1].data == {"cards": [13], "pile_size": s.pile_size}
    assert hand(s, 1) == [2, 7, 12]
    assert s.display_size == 6
    assert (s.phase, s.active) == (PLAY, 1)
    assert GAME.is_material_conserved(s)


def test_leave_then_take_back_returns_the_set_to_the_victims_hand() -> None:
    s, events = step(abluxxed_position(), 0, {"kind": "leave", "victim": 1})
    assert events[0].data == {"seat": 0, "victim": 1}
    assert s.phase == RECLAIM and GAME.to_act(s) == {1: ("take_back", "discard")}
    assert GAME.legal_commands(s, 1) == [{"kind": "take_back"}, {"kind": "discard"}]
    s, events = step(s, 1, {"kind": "take_back"})
    assert types(events) == ["SetTakenBack", "TurnPassed"]
    assert hand(s, 1) == [2, 3, 3] and hand(s, 0) == [1]
    assert s.rows[1] == () and s.display_size == 6 and sum(s.discard) == 0


def test_leave_then_discard_sends_the_set_to_the_discard_pile_and_the_victim_draws() -> None:
    s, _ = step(abluxxed_position(), 0, {"kind": "leave", "victim": 1})
    s, events = step(s, 1, {"kind": "discard"})
    assert types(events) == ["SetDiscarded"]
    assert GAME.view(s, None)["discard"] == [3, 3]
    assert (s.phase, s.owed) == (DRAW, 2)
    s, _ = step(s, 1, draw("pile"))
    s, events = step(s, 1, draw("display", 11))
    assert types(events) == ["CardDrawn", "DisplayRefilled", "TurnPassed"]
    assert events[1].data["cards"] == [13]
    assert hand(s, 1) == [2, 11, 12] and hand(s, 0) == [1]
    assert GAME.is_material_conserved(s)


def test_two_victims_display_refilled_before_the_second_victim() -> None:
    s = position(
        hands={0: [6, 6, 1], 1: [2], 2: [4]},
        rows={1: [(3, 2, 0)], 2: [(5, 1, 1)]},
        display=DISPLAY,
        pile=[12, 13, 5],
        fill="discard",
    )
    s, events = step(s, 0, {"kind": "play", "number": 6, "count": 2, "jokers": 0})
    assert events[1].data["victims"] == [1, 2]
    assert s.rows[2] == (CardSet(5, 1, 1),)  # the second victim's set is still in its row
    s, _ = step(s, 0, {"kind": "take", "victim": 1})
    s, _ = step(s, 1, draw("display", 7))
    s, events = step(s, 1, draw("display", 7))
    assert types(events) == ["CardDrawn", "DisplayRefilled", "SetRemoved"]
    assert events[1].data == {"cards": [12, 13], "pile_size": 1}
    assert events[2].data == {"seat": 2, "set": {"number": 5, "count": 1, "jokers": 1}}
    assert (s.phase, s.victim, s.victims, s.active) == (CHOOSE, 2, (), 0)
    assert s.rows[2] == () and s.display_size == 6
    assert GAME.legal_commands(s, 0) == [
        {"kind": "take", "victim": 2},
        {"kind": "leave", "victim": 2},
    ]
    s, _ = step(s, 0, {"kind": "leave", "victim": 2})
    s, _ = step(s, 2, {"kind": "discard"})
    s, _ = step(s, 2, draw("pile"))
    s, events = step(s, 2, draw("display", 12))
    assert types(events) == ["CardDrawn", "TurnPassed"]  # the pile is empty: nothing to refill
    assert hand(s, 2) == [4, 5, 12]
    assert (s.phase, s.active, s.display_size, s.pile_size) == (PLAY, 1, 5, 0)
    assert GAME.is_material_conserved(s)


def test_game_ends_mid_draw_when_pile_is_empty_and_last_display_card_is_taken() -> None:
    s = abluxxed_position(display=[9], pile=[], fill="discard")
    s, _ = step(s, 0, {"kind": "take", "victim": 1})
    assert s.owed == 2
    s, events = step(s, 1, draw("display", 9))
    assert types(events) == ["CardDrawn", "DealEnded", "GameEnded"]
    assert events[1].data["reason"] == "cards_exhausted"
    assert hand(s, 1) == [2, 9]  # the second owed card is never drawn
    assert (s.phase, s.owed) == (OVER, 1)
    # seat 0: row 6,6 (+2), hand 1,3,3 (-3); seat 1: hand 2 cards; seat 2: hand 1 card
    assert events[2].data["scores"] == [-1, -2, -1]
    assert events[2].data["winners"] == [2]  # tie on -1: seat 2 holds fewer cards
    assert GAME.is_material_conserved(s)


def test_house_pile_draw_emptying_pile_while_display_is_empty_ends_the_deal() -> None:
    s = position(
        hands={0: [6, 6, 6, 1], 1: [2], 2: [4]},
        rows={1: [(3, 3, 0)]},
        display=[9],
        pile=[10],
        fill="discard",
    )
    s, _ = step(s, 0, {"kind": "play", "number": 6, "count": 3, "jokers": 0})
    s, _ = step(s, 0, {"kind": "take", "victim": 1})
    s, events = step(s, 1, draw("display", 9))
    assert types(events) == ["CardDrawn"]  # the pile still holds a card
    s, events = step(s, 1, draw("pile"))
    assert types(events) == ["CardDrawn", "DealEnded", "GameEnded"]
    assert s.owed == 1 and hand(s, 1) == [2, 9, 10]


def test_unresolved_victims_keep_their_set_when_the_game_ends_mid_draw() -> None:
    s = position(
        hands={0: [6, 6, 1], 1: [2], 2: [4]},
        rows={1: [(3, 2, 0)], 2: [(5, 2, 0)]},
        display=[9],
        fill="discard",
    )
    s, _ = step(s, 0, {"kind": "play", "number": 6, "count": 2, "jokers": 0})
    s, _ = step(s, 0, {"kind": "take", "victim": 1})
    s, events = step(s, 1, draw("display", 9))
    assert types(events)[-1] == "GameEnded"
    assert s.rows[2] == (CardSet(5, 2, 0),)
    # seat 2 scores its row: +2 - 1 card in hand
    assert events[-1].data["scores"][2] == 1


def test_take_or_leave_must_name_the_current_victim() -> None:
    s = abluxxed_position()
    for kind in ("take", "leave"):
        with pytest.raises(RuleViolation) as err:
            GAME.decide(s, 0, {"kind": kind, "victim": 2}, None)
        assert err.value.code == "wrong_victim"


def test_only_the_right_seat_and_kinds_in_each_phase() -> None:
    s = abluxxed_position()
    with pytest.raises(RuleViolation) as err:
        GAME.decide(s, 1, {"kind": "take_back"}, None)
    assert err.value.code == NOT_YOUR_TURN
    with pytest.raises(RuleViolation) as err:
        GAME.decide(s, 0, {"kind": "draw", "from": "pile"}, None)
    assert err.value.code == WRONG_PHASE
    s, _ = step(s, 0, {"kind": "leave", "victim": 1})
    with pytest.raises(RuleViolation) as err:
        GAME.decide(s, 0, {"kind": "take", "victim": 1}, None)
    assert err.value.code == NOT_YOUR_TURN


def test_drawing_a_card_not_in_the_display_or_from_an_empty_pile_is_refused() -> None:
    s, _ = step(
        abluxxed_position(display=[9, 9, 8], pile=[], fill="discard"),
        0,
        {"kind": "take", "victim": 1},
    )
    with pytest.raises(RuleViolation) as err:
        GAME.decide(s, 1, draw("display", 7), None)
    assert err.value.code == "card_not_in_display"
    with pytest.raises(RuleViolation) as err:
        GAME.decide(s, 1, draw("pile"), None)
    assert err.value.code == "pile_empty"
    assert GAME.legal_commands(s, 1) == [draw("display", 8), draw("display", 9)]


def test_refill_from_a_short_pile_fills_what_it_can() -> None:
    s, _ = step(abluxxed_position(pile=[12], fill="discard"), 0, {"kind": "take", "victim": 1})
    s, _ = step(s, 1, draw("display", 7))
    s, events = step(s, 1, draw("display", 8))
    assert types(events) == ["CardDrawn", "DisplayRefilled", "TurnPassed"]
    assert events[1].data == {"cards": [12], "pile_size": 0}
    assert s.display_size == 5 and s.pile_size == 0 and s.phase == PLAY
