"""Determinization: a sampled state is one the seat cannot tell from the true one.

For random positions of every game and player count: the seat's view of the
sample equals its view of the true state, the legal commands agree, all
material is accounted for, and the hidden facts are really drawn afresh.
"""

from __future__ import annotations

import pytest
from ai_positions import CASES, IDS, random_position
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.ai.kits import kit_for
from engine.rng import SeededRandom


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=4, max_size=8), depth=st.integers(0, 300))
def test_a_sample_shows_the_seat_exactly_its_view(
    name: str, players: int, seed: bytes, depth: int
) -> None:
    position = random_position(name, players, seed, depth)
    game, seat = position.game, position.seat
    sampled = kit_for(name).sample(position.view, SeededRandom(seed, "sampler"))
    assert game.view(sampled, seat) == position.view
    assert game.legal_commands(sampled, seat) == position.legal
    assert game.to_act(sampled) == game.to_act(position.state)
    assert game.is_material_conserved(sampled)


@pytest.mark.parametrize("name", ["schlitzohr", "abluxxen"])
def test_samples_draw_the_hidden_facts_afresh(name: str) -> None:
    position = random_position(name, 2, b"fresh", 3)
    kit = kit_for(name)
    samples = [kit.sample(position.view, SeededRandom(bytes([k]), "sampler")) for k in range(8)]
    hidden = {_hidden(name, s) for s in samples}
    assert len(hidden) > 1, "the hidden part must vary between samples"
    assert kit.sample(position.view, SeededRandom(b"\x01", "sampler")) == samples[1]


def _hidden(name: str, state: object) -> tuple[object, ...]:
    if name == "schlitzohr":
        return tuple(state.colour)  # type: ignore[attr-defined]
    return (state.hands, state.order)  # type: ignore[attr-defined]


def test_schlitzohr_samples_keep_what_the_seat_saw() -> None:
    position = random_position("schlitzohr", 3, b"inspected", 60)
    view, state = position.view, position.state
    seen = [ear for ear, colour in enumerate(view["known_colours"]) if colour is not None]
    assert seen, "the position should hold at least one known colour"
    for k in range(5):
        sampled = kit_for("schlitzohr").sample(view, SeededRandom(bytes([k]), "sampler"))
        assert all(sampled.colour[ear] == state.colour[ear] for ear in seen)
        assert sorted(sampled.colour) == sorted(state.colour)


def test_abluxxen_samples_keep_the_hand_sizes_and_the_seat_hand() -> None:
    position = random_position("abluxxen", 4, b"hands", 40)
    view, state, seat = position.view, position.state, position.seat
    for k in range(5):
        sampled = kit_for("abluxxen").sample(view, SeededRandom(bytes([k]), "sampler"))
        assert sampled.hands[seat] == state.hands[seat]
        assert [sum(h) for h in sampled.hands] == [sum(h) for h in state.hands]
        assert sampled.pile_size == state.pile_size
