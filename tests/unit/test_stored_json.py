"""``events.redis_adapter.decode.loads``: orjson where it can, the standard library where
orjson refuses -- the value of a stored text is the one ``json.loads`` gives, always."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from events.model.canonical import canonical_json
from events.redis_adapter.decode import loads

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(JSON_VALUES)
def test_a_canonical_text_reads_as_json_loads_reads_it(value: object) -> None:
    text = canonical_json(value)
    for stored in (text, text.encode()):
        assert loads(stored) == json.loads(stored)


def test_what_orjson_refuses_or_reads_otherwise_is_read_by_the_standard_library() -> None:
    huge = '{"n":' + str(2**80 + 1) + "}"
    lone = '{"s":"\\ud800"}'
    # orjson 3.13 reads these as floats (earlier versions refused them); hypothesis found
    # the first, one past the smallest 64-bit integer.
    below = '{"n":' + str(-(2**63) - 1) + "}"
    above = "[" + str(2**64 + 1) + "]"
    for text in (huge, lone, below, above):
        assert loads(text) == json.loads(text)
        assert loads(text.encode()) == json.loads(text)
    assert loads(huge)["n"] == 2**80 + 1 and type(loads(below)["n"]) is int
    assert loads(above) == [2**64 + 1]
