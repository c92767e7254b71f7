"""The end of a turn: amigo bonus draw or pass, classic no draw, turn order (rules: steps 5-6)."""

from __future__ import annotations

from abluxxen_positions import hand, position, step, types

from engine.abluxxen.game import GAME
from engine.abluxxen.state import BONUS, OVER, PLAY

PLAY_5 = {"kind": "play", "number": 5, "count": 1, "jokers": 0}
DISPLAY = [1, 2, 3, 4, 6, "X"]


def test_amigo_without_victims_offers_one_draw_or_pass() -> None:
    s, events = step(position(hands={0: [5, 9]}, display=DISPLAY), 0, PLAY_5)
    assert types(events) == ["SetPlayed"]
    assert s.phase == BONUS and GAME.to_act(s) == {0: ("draw", "pass")}
    legal = GAME.legal_commands(s, 0)
    assert legal[-2:] == [{"kind": "draw", "from": "pile"}, {"kind": "pass"}]
    assert {c.get("card") for c in legal[:-2]} == {1, 2, 3, 4, 6, "X"}


def test_amigo_bonus_draw_from_display_then_refill_then_next_seat() -> None:
    s, _ = step(position(hands={0: [5, 9]}, display=DISPLAY, pile=[13]), 0, PLAY_5)
    s, events = step(s, 0, {"kind": "draw", "from": "display", "card": "X"})
    assert types(events) == ["CardDrawn", "DisplayRefilled", "TurnPassed"]
    assert events[1].data["cards"] == [13]
    assert events[2].data == {"seat": 0, "next": 1}
    assert hand(s, 0) == [9, "X"] and s.display_size == 6
    assert (s.phase, s.active) == (PLAY, 1)


def test_amigo_bonus_draw_from_pile_is_private_to_the_drawer() -> None:
    s, _ = step(position(hands={0: [5, 9]}, display=DISPLAY, pile=[13]), 0, PLAY_5)
    s, events = step(s, 0, {"kind": "draw", "from": "pile"})
    assert types(events) == ["CardDrawn", "TurnPassed"]  # the display is still full
    drawn = events[0]
    assert drawn.data == {"seat": 0, "from": "pile"} and drawn.private == {"card": 13}
    assert drawn.visible_to == (0,)
    assert drawn.redacted_for(1).private is None and drawn.redacted_for(None).private is None
    assert hand(s, 0) == [9, 13]


def test_pass_declines_the_bonus() -> None:
    s, _ = step(position(hands={0: [5, 9]}, display=DISPLAY), 0, PLAY_5)
    s, events = step(s, 0, {"kind": "pass"})
    assert types(events) == ["DrawDeclined", "TurnPassed"]
    assert hand(s, 0) == [9] and s.active == 1


def test_classic_has_no_bonus_draw() -> None:
    s, events = step(position(hands={0: [5, 9]}, display=DISPLAY, edition="classic"), 0, PLAY_5)
    assert types(events) == ["SetPlayed", "TurnPassed"]
    assert (s.phase, s.active) == (PLAY, 1)
    assert hand(s, 0) == [9]


def test_no_bonus_draw_after_abluxxing() -> None:
    s = position(hands={0: [5, 9], 1: [1]}, rows={1: [(4, 1, 0)]}, display=DISPLAY)
    s, _ = step(s, 0, PLAY_5)
    s, events = step(s, 0, {"kind": "leave", "victim": 1})
    s, events = step(s, 1, {"kind": "take_back"})
    assert types(events) == ["SetTakenBack", "TurnPassed"]
    assert (s.phase, s.active) == (PLAY, 1)


def test_turn_passes_clockwise_and_wraps() -> None:
    s = position(hands={2: [5, 9]}, display=DISPLAY, active=2, edition="classic")
    s, events = step(s, 2, PLAY_5)
    assert events[-1].data == {"seat": 2, "next": 0}
    assert GAME.to_act(s) == {0: ("play",)}


def test_bonus_draw_of_the_last_display_card_with_empty_pile_ends_the_game() -> None:
    s = position(hands={0: [5, 9], 1: [1, 1]}, display=[7], fill="discard")
    s, _ = step(s, 0, PLAY_5)
    assert GAME.legal_commands(s, 0) == [
        {"kind": "draw", "from": "display", "card": 7},
        {"kind": "pass"},
    ]
    s, events = step(s, 0, {"kind": "draw", "from": "display", "card": 7})
    assert types(events) == ["CardDrawn", "DealEnded", "GameEnded"]
    assert events[-1].data["reason"] == "cards_exhausted"
    assert s.phase == OVER and GAME.to_act(s) == {}
