"""``documents.encode`` (orjson) writes what the standard library's compact form writes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.playout import play
from engine.registry import get_game
from service.app.documents import encode

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
