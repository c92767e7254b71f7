"""Layout data, options, setup and the colour assignment."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import pytest
from schlitzohr_helpers import CLASSIC, PEN, dealt_colours, private

from engine.errors import INVALID_OPTION, INVALID_PLAYER_COUNT, RuleViolation
from engine.game import replay
from engine.rng import SeededRandom
from engine.schlitzohr.board import CLASSIC_9X9, compile_layout
from engine.schlitzohr.game import GAME
from engine.schlitzohr.state import START


def names(fields: tuple[int, ...] | list[int]) -> list[str]:
    return [CLASSIC.names[f] for f in fields]


def test_classic_targets_in_edge_order() -> None:
    assert [names(t) for t in CLASSIC.targets_of] == [
        ["c1", "d1", "f1", "g1"],
        ["a3", "a4", "a6", "a7"],
        ["c9", "d9", "f9", "g9"],
        ["i3", "i4", "i6", "i7"],
    ]


def test_classic_blocked_fields() -> None:
    assert sorted(n for f, n in enumerate(CLASSIC.names) if CLASSIC.blocked[f]) == [
        "a5",
        "e1",
        "e9",
        "i5",
    ]


def test_start_fields_are_the_ring_at_distance_two_from_e5() -> None:
    ring = {f for f in range(81) if max(abs(f % 9 - 4), abs(f // 9 - 4)) == 2}
    assert set(CLASSIC.starts) == ring and len(CLASSIC.starts) == 16


def test_every_other_field_is_grey() -> None:
    grey = [f for f in range(81) if CLASSIC.is_grey(f)]
    assert len(grey) == 81 - 16 - 4
    assert all(CLASSIC.is_grey(f) for f in CLASSIC.starts)


def test_reach_stops_at_targets_and_before_blocked_fields() -> None:
    east_of_b1 = CLASSIC.reach[CLASSIC.index["b1"]][2]
    assert names(east_of_b1) == ["c1"]  # may end on the target c1, never pass it
    south_of_e3 = CLASSIC.reach[CLASSIC.index["e3"]][1]
    assert names(south_of_e3) == ["e2"]  # e1 is blocked


@pytest.mark.parametrize(
    "change",
    [
        {"starts": (*CLASSIC_9X9.starts[:-1], "c1")},  # a start on a target
        {"starts": (*CLASSIC_9X9.starts[:-1], "c3")},  # a start twice
        {"blocked": ("e1", "a5", "e9", "j5")},  # not on the board
        {"blocked": ("c1", "a5", "e9", "i5")},  # blocked and a target
        {"targets": (("red", ("c1", "d1", "f1", "a3")), *CLASSIC_9X9.targets[1:])},  # shared
        {"targets": (CLASSIC_9X9.targets[1], CLASSIC_9X9.targets[0], *CLASSIC_9X9.targets[2:])},
    ],
)
def test_inconsistent_layout_data_is_refused(change: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        compile_layout(replace(CLASSIC_9X9, **change))


def test_options_defaults_and_limits() -> None:
    assert GAME.validate_options(None) == {
        "layout": "classic-9x9",
        "joker_six_returns": True,
        "turn_cap": 300,
    }
    for raw in (
        {"layout": "hex"},
        {"turn_cap": 9},
        {"turn_cap": 2001},
        {"turn_cap": True},
        {"joker_six_returns": 1},
        {"colour": "red"},
    ):
        with pytest.raises(RuleViolation) as err:
            GAME.validate_options(raw)
        assert err.value.code == INVALID_OPTION


@pytest.mark.parametrize("players", [1, 5, 0, True, "2"])
def test_setup_refuses_player_counts_outside_two_to_four(players: object) -> None:
    with pytest.raises(RuleViolation) as err:
        GAME.setup(GAME.validate_options({}), players, SeededRandom(b"s", "t"))  # type: ignore[arg-type]
    assert err.value.code == INVALID_PLAYER_COUNT


@pytest.mark.parametrize(
    ("players", "colours"),
    [(2, ["red", "green"]), (3, ["red", "blue", "green"]), (4, ["red", "blue", "green", "yellow"])],
)
def test_colour_assignment_by_seat_count(players: int, colours: list[str]) -> None:
    events = GAME.setup(GAME.validate_options({}), players, SeededRandom(b"s", "t"))
    assert events[0].data["seat_colours"] == colours
    state = replay(GAME, events)
    assert GAME.view(state, None)["seat_colours"] == colours


def test_setup_event_hides_colours_and_shows_positions() -> None:
    (event,) = GAME.setup(GAME.validate_options({"turn_cap": 50}), 3, SeededRandom(b"seed", "t"))
    assert event.type == "GameSetUp"
    assert event.visible_to == () and not event.is_visible_to(0) and not event.is_visible_to(None)
    assert event.data["ears"] == names(CLASSIC.starts)  # ear i on start field i, public
    assert Counter(private(event)["colours"]) == {"red": 4, "blue": 4, "green": 4, "yellow": 4}
    assert "colours" not in event.data
    assert event.data["options"] == {
        "layout": "classic-9x9",
        "joker_six_returns": True,
        "turn_cap": 50,
    }


def test_setup_shuffle_depends_on_the_seed_only() -> None:
    assert dealt_colours(2, b"a") == dealt_colours(2, b"a") == dealt_colours(4, b"a")
    assert any(dealt_colours(2, b"a") != dealt_colours(2, bytes([i])) for i in range(5))


def test_initial_state() -> None:
    state = replay(GAME, GAME.setup(GAME.validate_options({}), 4, SeededRandom(b"s", "t")))
    assert (state.turn, state.active, state.phase, state.jokers_left) == (1, 0, START, (3, 3, 3, 3))
    assert state.revealed == frozenset() and GAME.is_material_conserved(state)
    assert GAME.to_act(state) == {0: ("roll", "joker")}
    assert GAME.legal_commands(state, 0) == [{"kind": "roll"}, {"kind": "joker"}]
    assert GAME.legal_commands(state, 1) == []


def test_metadata() -> None:
    assert (GAME.name, GAME.rules_version, GAME.min_players, GAME.max_players) == (
        "schlitzohr",
        "schlitzohr/1",
        2,
        4,
    )
    assert {spec.kind for spec in GAME.command_specs} == {
        "roll",
        "joker",
        "move",
        "peek",
        "place",
        "inspect",
    }


def test_classic_grey_fields_are_connected() -> None:
    # Why "no legal step left" never happens on classic-9x9 (docs/rules/schlitzohr.md):
    # the grey area is one connected region, far larger than 16 ears can fill.
    grey = {f for f in range(81) if CLASSIC.is_grey(f)}
    seen, todo = set(), [min(grey)]
    while todo:
        field = todo.pop()
        if field in seen:
            continue
        seen.add(field)
        todo += [ray[0] for ray in CLASSIC.line[field] if ray and ray[0] in grey]
    assert seen == grey


def test_another_layout_is_just_data() -> None:
    assert PEN.files == 9 and PEN.ranks == 4
    assert [PEN.names[f] for f in PEN.targets_of[3]] == ["f4", "g4", "h4", "i4"]
    assert PEN.reach[PEN.index["e4"]] == ((), (), (PEN.index["f4"],), ())
