"""Material, options and the deal (rules: Material, Setup)."""

from __future__ import annotations

from collections import Counter

import pytest
from abluxxen_positions import rng

from engine.abluxxen.cards import JOKER, card_from_json, card_to_json, deck
from engine.abluxxen.game import GAME
from engine.errors import INVALID_OPTION, INVALID_PLAYER_COUNT, RuleViolation
from engine.game import replay


def test_deck_has_109_cards_eight_of_each_number_and_five_jokers() -> None:
    cards = deck()
    assert len(cards) == 109
    counts = Counter(cards)
    assert counts[JOKER] == 5
    assert all(counts[n] == 8 for n in range(1, 14))
    assert set(counts) == {JOKER, *range(1, 14)}


def test_card_json_form_is_int_or_x() -> None:
    assert card_to_json(JOKER) == "X"
    assert card_to_json(13) == 13
    assert card_from_json("X") == JOKER
    assert card_from_json(7) == 7
    for bad in (0, 14, True, "7", 7.0, None, "x"):
        assert card_from_json(bad) is None


def test_game_identity() -> None:
    assert (GAME.name, GAME.rules_version, GAME.min_players, GAME.max_players) == (
        "abluxxen",
        "abluxxen/1",
        2,
        5,
    )


def test_options_defaults_and_limits() -> None:
    assert GAME.validate_options(None) == {"edition": "amigo", "rounds": 1}
    assert GAME.validate_options({"edition": "classic", "rounds": 3}) == {
        "edition": "classic",
        "rounds": 3,
    }
    for bad in (
        {"edition": "duel"},
        {"rounds": 0},
        {"rounds": 11},
        {"rounds": True},
        {"variant": 1},
    ):
        with pytest.raises(RuleViolation) as err:
            GAME.validate_options(bad)
        assert err.value.code == INVALID_OPTION


@pytest.mark.parametrize("players", [1, 6, 0])
def test_player_count_outside_2_to_5_is_refused(players: int) -> None:
    with pytest.raises(RuleViolation) as err:
        GAME.setup(GAME.validate_options({}), players, rng())
    assert err.value.code == INVALID_PLAYER_COUNT


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_deal_sizes_per_player_count(players: int) -> None:
    events = GAME.setup(GAME.validate_options({}), players, rng())
    state = replay(GAME, events)
    assert [sum(h) for h in state.hands] == [13] * players
    assert state.display_size == 6
    assert state.pile_size == 109 - 13 * players - 6
    assert sum(state.discard) == 0
    assert state.rows == ((),) * players
    assert GAME.is_material_conserved(state)
    assert GAME.to_act(state) == {0: ("play",)}


def test_setup_events_hide_the_order_and_each_hand() -> None:
    events = GAME.setup(GAME.validate_options({"rounds": 2}), 3, rng())
    assert [e.type for e in events] == ["GameStarted", "DeckShuffled"] + ["HandDealt"] * 3 + [
        "DisplayDealt"
    ]
    started, shuffled, *dealt, display = events
    assert started.data == {"players": 3, "options": {"edition": "amigo", "rounds": 2}}
    assert started.private is None
    assert shuffled.data == {"round": 1, "start_seat": 0, "size": 109}
    assert shuffled.visible_to == () and len(shuffled.private["order"]) == 109
    for seat, event in enumerate(dealt):
        assert event.data == {"seat": seat, "size": 13}
        assert event.visible_to == (seat,)
        assert event.private["cards"] == shuffled.private["order"][13 * seat : 13 * seat + 13]
    assert display.private is None
    assert display.data == {"cards": shuffled.private["order"][39:45], "pile_size": 109 - 45}


def test_the_shuffle_is_deterministic_per_seed_and_differs_between_seeds() -> None:
    def order(seed: bytes) -> list:
        return GAME.setup(GAME.validate_options({}), 2, rng(seed))[1].private["order"]

    assert order(b"a") == order(b"a")
    assert order(b"a") != order(b"b")
    assert Counter(order(b"a")) == Counter({"X": 5, **{n: 8 for n in range(1, 14)}})
