"""The command body's fast path agrees with its marshmallow schema on any JSON."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import ValidationError

from service.http.schemas import SUBMIT

json_scalars = st.none() | st.booleans() | st.integers(-5, 2**70) | st.floats(allow_nan=False) | st.text(max_size=5)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
# Bodies close to the valid shape, where a fast path could most easily go wrong.
edge_versions = st.sampled_from([None, True, False, -1, 0, 1, 2**63, 1.0, 0.0, "1", [], {}])
commands = st.dictionaries(st.text(max_size=5), json_values, max_size=3)
near_bodies = st.fixed_dictionaries(
    {"command": commands | json_values},
    optional={"expected_version": edge_versions | json_values},
) | st.fixed_dictionaries(
    {},
    optional={"command": commands, "expected_version": edge_versions, "extra": json_values},
)


def outcome(load: Any, body: Any) -> tuple[str, Any]:
    try:
        return "ok", load(body)
    except ValidationError as err:
        return "invalid", err.messages


@settings(max_examples=400)
@given(near_bodies | near_bodies | json_values)
def test_load_fast_gives_what_marshmallow_gives(body: Any) -> None:
    assert outcome(SUBMIT.load_fast, body) == outcome(SUBMIT.load, body)


def test_the_fast_path_copies_the_command() -> None:
    body = {"command": {"kind": "roll"}, "expected_version": 3}
    loaded = SUBMIT.load_fast(body)
    assert loaded == {"command": {"kind": "roll"}, "expected_version": 3}
    assert loaded["command"] is not body["command"]
    assert SUBMIT.load_fast({"command": {}}) == {"command": {}, "expected_version": None}


def _stdlib(raw: bytes) -> Any:
    import json

    from service.http.body import _no_constants

    return json.loads(raw, parse_constant=_no_constants)


def _outcome(load: Any, raw: bytes) -> Any:
    try:
        return ("ok", load(raw))
    except (ValueError, RecursionError):
        return ("error",)


encodings = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32"])
raw_bodies = (
    st.tuples(json_values, encodings).map(lambda pair: __import__("json").dumps(pair[0]).encode(pair[1]))
    | st.binary(max_size=40)
    | st.sampled_from([b"NaN", b"[Infinity]", b"-Infinity", b"", b"\xff", b"[" * 5000, b'{"a":1,"a":2}'])
)


@settings(max_examples=400, deadline=None)
@given(raw_bodies)
def test_the_body_decoder_agrees_with_json_loads(raw: bytes) -> None:
    """The prebuilt decoder of the body reader accepts and refuses exactly what
    ``json.loads`` with the same options does, with the same result."""
    from service.http.body import _loads

    assert _outcome(_loads, raw) == _outcome(_stdlib, raw)
