"""``documents.encode`` (orjson) writes what the standard library's compact form writes;
``documents.encode_enumerated`` writes what ``encode`` writes of the expanded legal list."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.choices import CHOOSE, choice, expand
from engine.playout import play
from engine.registry import get_game
from service.app.documents import encode, encode_enumerated

documents = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def stdlib(document: Any) -> str:
    return json.dumps(document, separators=(",", ":"), ensure_ascii=False)


@given(documents)
def test_encode_equals_the_compact_standard_form(document: Any) -> None:
    assert encode(document) == stdlib(document)


@pytest.mark.parametrize("name", ["schlitzohr", "abluxxen"])
def test_real_views_and_events_encode_alike(name: str) -> None:
    game = get_game(name)
    outcome = play(game, 3, b"encode")
    for seat in range(3):
        view = game.view(outcome.state, seat)
        assert encode(view) == stdlib(view)
    events = [event.to_json() for event in outcome.events]
    assert encode(events) == stdlib(events)


def test_what_is_not_json_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        encode({"x": object()})


# encode_enumerated: the enumerated legal list written from the compact one, as text.

scalars = st.integers(-(2**31), 2**31) | st.text(max_size=3)
plain_commands = st.fixed_dictionaries({"kind": st.text(max_size=5)}, optional={"n": scalars})
choices = st.builds(
    lambda kind, field, pool, data, fixed: choice(
        kind, field, pool, data.draw(st.integers(0, len(pool))), **fixed
    ),
    st.text(max_size=5),
    st.sampled_from(["ears", "cards", "kind_of"]),
    st.sets(st.integers(-50, 50), max_size=8),
    st.data(),
    st.dictionaries(st.sampled_from(["a", "z", "ears"]), scalars, max_size=2),
)
legal_documents = st.fixed_dictionaries(
    {
        "game_id": st.text(max_size=4),
        "version": st.integers(0, 10**6),
        "you": st.none() | st.integers(0, 5),
        "commands": st.lists(plain_commands | choices, max_size=5),
    }
)


@given(legal_documents)
def test_encode_enumerated_writes_the_expanded_document(document: dict[str, Any]) -> None:
    expanded = {**document, "commands": expand(document["commands"])}
    assert encode_enumerated(document) == encode(expanded)


def test_encode_enumerated_of_a_large_pick() -> None:
    document = {"version": 7, "commands": [{"kind": "roll"}, choice("inspect", "ears", range(16), 6)]}
    text = encode_enumerated(document)
    assert text == encode({**document, "commands": expand(document["commands"])})
    assert len(json.loads(text)["commands"]) == 1 + 8008


@pytest.mark.parametrize("name", ["schlitzohr", "abluxxen"])
def test_real_legal_lists_enumerate_as_the_engine_lists_them(name: str) -> None:
    game = get_game(name)
    seen_choice = False

    def check(state: Any, *_: Any) -> None:
        nonlocal seen_choice
        for seat in range(2):
            compact = game.legal_choices(state, seat)
            seen_choice |= any(CHOOSE in item for item in compact)
            document = {"version": 1, "you": seat, "commands": compact}
            enumerated = {**document, "commands": game.legal_commands(state, seat)}
            assert encode_enumerated(document) == encode(enumerated)

    play(game, 2, b"enumerate", on_step=check)
    assert seen_choice or name == "abluxxen"
