"""Views: what each seat and a spectator may see (rules: Hidden information)."""

from __future__ import annotations

import json

from abluxxen_positions import position, step

from engine.abluxxen.game import GAME
from engine.playout import play

RUNNING = position(
    hands={0: [9, "X", 1, 5, 5], 1: [2, 3], 2: [4]},
    rows={0: [(7, 1, 0)], 1: [(6, 2, 1), (None, 0, 1)]},
    display=[13, 1, 2],
    pile=[11, 12],
    discard=[8, 8],
    fill=None,
)


def test_a_seat_sees_its_own_hand_sorted_and_only_sizes_of_others() -> None:
    v = GAME.view(RUNNING, 0)
    assert v["seat"] == 0 and v["hand"] == [1, 5, 5, 9, "X"]
    assert v["hand_sizes"] == [5, 2, 1]
    assert "hands" not in v and "pile" not in v
    assert GAME.view(RUNNING, 1)["hand"] == [2, 3]


def test_public_parts_of_the_view() -> None:
    v = GAME.view(RUNNING, 2)
    assert v["rows"] == [
        [{"number": 7, "count": 1, "jokers": 0}],
        [{"number": 6, "count": 2, "jokers": 1}, {"number": None, "count": 0, "jokers": 1}],
        [],
    ]
    assert v["display"] == [1, 2, 13]
    assert v["pile_size"] == 2
    assert v["discard"] == [8, 8]
    assert v["to_act"] == {"seat": 0, "kinds": ["play"]}
    assert (v["phase"], v["active"], v["round"], v["owed"], v["victim"]) == ("play", 0, 1, 0, None)
    assert v["scores"] == [1 - 5, 4 - 2, -1]
    assert v["result"] is None
    json.dumps(v)


def test_spectator_sees_no_hand() -> None:
    v = GAME.view(RUNNING, None)
    assert v["seat"] is None and v["hand"] is None
    assert "hands" not in v
    assert GAME.view(RUNNING, 7)["hand"] is None  # an unknown seat sees what a spectator sees


def test_pending_victims_and_owed_cards_are_public() -> None:
    s = position(hands={0: [6, 6, 1], 1: [2], 2: [4]}, rows={1: [(3, 2, 0)], 2: [(5, 2, 0)]})
    s, _ = step(s, 0, {"kind": "play", "number": 6, "count": 2, "jokers": 0})
    v = GAME.view(s, 2)
    assert (v["victim"], v["victims_pending"]) == (1, [2])
    assert v["set_in_dispute"] == {"number": 3, "count": 2, "jokers": 0}
    s, _ = step(s, 0, {"kind": "take", "victim": 1})
    v = GAME.view(s, 2)
    assert (v["owed"], v["set_in_dispute"], v["to_act"]) == (
        2,
        None,
        {"seat": 1, "kinds": ["draw"]},
    )


def test_a_pile_draw_shows_only_in_the_drawers_hand() -> None:
    s = position(hands={0: [5, 9], 1: [1]}, pile=[13])
    s, _ = step(s, 0, {"kind": "play", "number": 5, "count": 1, "jokers": 0})
    s, _ = step(s, 0, {"kind": "draw", "from": "pile"})
    assert GAME.view(s, 0)["hand"] == [9, 13]
    assert GAME.view(s, 1)["hand"] == [1] and GAME.view(s, 1)["hand_sizes"] == [2, 1, 0]
    assert 13 not in GAME.view(s, 1)["display"]


def test_after_the_end_everything_is_shown() -> None:
    done = play(GAME, 3, b"views-end")
    v = GAME.view(done.state, None)
    assert v["phase"] == "over" and v["to_act"] is None
    assert len(v["hands"]) == 3 and isinstance(v["pile"], list)
    assert v["result"] == done.result.to_json()
    json.dumps(v)
