"""Views: what each viewer may see, JSON-safe, nothing hidden."""

from __future__ import annotations

import json

from schlitzohr_helpers import act, position, step

from engine.schlitzohr.game import GAME
from engine.schlitzohr.state import MOVING

VIEW_KEYS = set(
    "game viewer players options board known_colours inspected seat_colours jokers_left scores"
    " turn active_seat phase pips_left inspect_count last_roll result forfeited".split()
)


def test_spectator_view_of_a_new_game_shows_no_colour() -> None:
    view = GAME.view(position(), None)
    assert set(view) == VIEW_KEYS and "legal" not in view
    assert json.loads(json.dumps(view)) == view
    assert [ear["colour"] for ear in view["board"]["ears"]] == [None] * 16
    assert view["known_colours"] == [None] * 16
    assert view["board"]["ears"][0] == {"id": 0, "field": "c3", "colour": None}
    assert sorted(view["board"]["blocked"]) == ["a5", "e1", "e9", "i5"]
    assert view["board"]["targets"]["red"] == ["c1", "d1", "f1", "g1"]
    assert (view["seat_colours"], view["jokers_left"], view["scores"]) == (
        ["red", "green"],
        [3, 3],
        [6, 6],
    )
    assert (view["turn"], view["active_seat"], view["phase"], view["last_roll"]) == (
        1,
        0,
        "start",
        None,
    )


def test_inspected_colours_only_in_the_inspecting_seats_view() -> None:
    state, _ = act(position(), 0, {"kind": "joker"}, 2)
    state, _ = act(state, 0, {"kind": "inspect", "ears": [4, 9]})
    mine, theirs, spectator = (GAME.view(state, seat) for seat in (0, 1, None))
    assert mine["known_colours"][4] == "blue" and mine["known_colours"][9] == "green"
    assert [c for c in mine["known_colours"] if c] == ["blue", "green"]
    assert theirs["known_colours"] == spectator["known_colours"] == [None] * 16
    assert mine["inspected"] == theirs["inspected"] == spectator["inspected"] == [[4, 9], []]
    for view in (mine, theirs, spectator):
        assert all(
            ear["colour"] is None for ear in view["board"]["ears"]
        )  # the board shows reveals only
        assert view["last_roll"] == {"purpose": "joker", "value": 2} and view["jokers_left"] == [
            2,
            3,
        ]


def test_revealed_colours_are_public() -> None:
    state, _ = act(position(fields={4: "b1"}, phase=MOVING, pips=1), 0, step(4, "c1"))
    for seat in (0, 1, None):
        view = GAME.view(state, seat)
        assert view["board"]["ears"][4] == {"id": 4, "field": "a3", "colour": "blue"}
        assert view["known_colours"][4] == "blue"
        assert sum(1 for c in view["known_colours"] if c) == 1


def test_after_the_end_every_colour_is_shown() -> None:
    fields = {0: "c1", 1: "d1", 2: "g1", 3: "f2"}
    state, _ = act(position(fields=fields, phase=MOVING, pips=1), 0, step(3, "f1"))
    view = GAME.view(state, None)
    expected = [c for c in ("red", "blue", "green", "yellow") for _ in range(4)]
    assert [ear["colour"] for ear in view["board"]["ears"]] == expected
    assert view["known_colours"] == expected
    assert view["result"] == {
        "scores": [26, 6],
        "winners": [0],
        "reason": "all_ears_home",
        "turns": 1,
    }
    assert view["active_seat"] is None and view["phase"] == "over"


def test_views_are_fresh_data() -> None:
    state = position()
    first = GAME.view(state, 0)
    first["board"]["targets"]["red"].append("x")
    first["board"]["ears"].clear()
    assert GAME.view(state, 0)["board"]["targets"]["red"] == ["c1", "d1", "f1", "g1"]


def test_known_colours_come_from_the_seats_own_inspections() -> None:
    state = position(3, known={1: [3, 12]})
    assert [c for c in GAME.view(state, 1)["known_colours"] if c] == ["red", "yellow"]
    assert GAME.view(state, 1)["known_colours"][3] == "red"
    for viewer in (0, 2, None):
        assert GAME.view(state, viewer)["known_colours"] == [None] * 16
        assert GAME.view(state, viewer)["inspected"] == [[], [3, 12], []]
