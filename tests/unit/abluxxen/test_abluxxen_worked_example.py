"""The worked example of docs/rules/abluxxen.md, step by step, with its exact event JSON.

If this test changes, the rules page must change with it.
"""

from __future__ import annotations

from abluxxen_positions import position, step

from engine.abluxxen.game import GAME

START = position(
    hands={0: [9, 9, "X", 2, 5], 1: [1, 6, 13], 2: [3, 10]},
    rows={0: [(12, 1, 0)], 1: [(8, 2, 0), (4, 3, 0)], 2: [(7, 2, 1)]},
    display=[1, 3, 6, 11, 12, "X"],
    pile=[5, 10, 2, 8, 4, 7],
)


def s(number: int | None, count: int, jokers: int) -> dict:
    return {"number": number, "count": count, "jokers": jokers}


SCRIPT = [
    (
        0,
        {"kind": "play", "number": 9, "count": 2, "jokers": 1},
        [
            {"type": "SetPlayed", "data": {"seat": 0, "set": s(9, 2, 1)}},
            {"type": "Abluxxed", "data": {"seat": 0, "victims": [1, 2]}},
            {"type": "SetRemoved", "data": {"seat": 1, "set": s(4, 3, 0)}},
        ],
    ),
    (
        0,
        {"kind": "take", "victim": 1},
        [
            {"type": "SetTaken", "data": {"seat": 0, "victim": 1, "set": s(4, 3, 0)}},
        ],
    ),
    (
        1,
        {"kind": "draw", "from": "display", "card": "X"},
        [
            {"type": "CardDrawn", "data": {"seat": 1, "from": "display", "card": "X"}},
        ],
    ),
    (
        1,
        {"kind": "draw", "from": "pile"},
        [
            {
                "type": "CardDrawn",
                "data": {"seat": 1, "from": "pile"},
                "private": {"card": 5},
                "visible_to": [1],
            },
        ],
    ),
    (
        1,
        {"kind": "draw", "from": "display", "card": 6},
        [
            {"type": "CardDrawn", "data": {"seat": 1, "from": "display", "card": 6}},
            {"type": "DisplayRefilled", "data": {"cards": [10, 2], "pile_size": 81}},
            {"type": "SetRemoved", "data": {"seat": 2, "set": s(7, 2, 1)}},
        ],
    ),
    (
        0,
        {"kind": "leave", "victim": 2},
        [
            {"type": "SetLeft", "data": {"seat": 0, "victim": 2}},
        ],
    ),
    (
        2,
        {"kind": "discard"},
        [
            {"type": "SetDiscarded", "data": {"seat": 2, "set": s(7, 2, 1)}},
        ],
    ),
    (
        2,
        {"kind": "draw", "from": "pile"},
        [
            {
                "type": "CardDrawn",
                "data": {"seat": 2, "from": "pile"},
                "private": {"card": 8},
                "visible_to": [2],
            },
        ],
    ),
    (
        2,
        {"kind": "draw", "from": "display", "card": 12},
        [
            {"type": "CardDrawn", "data": {"seat": 2, "from": "display", "card": 12}},
        ],
    ),
    (
        2,
        {"kind": "draw", "from": "display", "card": 11},
        [
            {"type": "CardDrawn", "data": {"seat": 2, "from": "display", "card": 11}},
            {"type": "DisplayRefilled", "data": {"cards": [4, 7], "pile_size": 78}},
            {"type": "TurnPassed", "data": {"seat": 0, "next": 1}},
        ],
    ),
]


def test_worked_example_two_victims() -> None:
    state = START
    for seat, command, expected in SCRIPT:
        assert command in GAME.legal_commands(state, seat)
        state, events = step(state, seat, command)
        assert [e.to_json() for e in events] == expected
        assert GAME.is_material_conserved(state)
    v = GAME.view(state, 1)
    assert v["hand"] == [1, 5, 6, 6, 13, "X"]
    assert v["hand_sizes"] == [5, 6, 5]
    assert v["rows"] == [[s(12, 1, 0), s(9, 2, 1)], [s(8, 2, 0)], []]
    assert v["display"] == [1, 2, 3, 4, 7, 10] and v["pile_size"] == 78
    assert v["discard"] == [7, 7, "X"]
    assert (v["phase"], v["active"], v["scores"]) == ("play", 1, [4 - 5, 2 - 6, 0 - 5])
