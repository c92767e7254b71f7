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


class _Fraction:
    """A JSON number with a fraction or exponent, as written (the reference reads it late)."""

    def __init__(self, text: str) -> None:
        self.text = text


def _strict_reference(raw: bytes) -> Any:
    """What a strict UTF-8 JSON reader must answer, step by step and slowly: no BOM, no
    UTF-16/32 (RFC 8259 section 8.1's sniff), valid UTF-8, one JSON value (the stdlib
    with NaN refused), then no key twice in any object, then no lone surrogate in any
    string. Objects are read as lists of pairs, so nothing is lost before the checks."""
    import decimal
    import json

    from service.http.body import MAX_DEPTH, BadBody, _no_constants

    if raw.startswith(b"\xef\xbb\xbf") or json.detect_encoding(raw) != "utf-8":
        raise BadBody("invalid_encoding", "")
    try:
        text = raw.decode("utf-8", "strict")
    except UnicodeDecodeError:
        raise BadBody("invalid_encoding", "") from None
    try:
        tree = json.loads(
            text,
            parse_constant=_no_constants,
            object_pairs_hook=lambda p: ("obj", p),
            parse_float=_Fraction,
        )
    except (ValueError, RecursionError):
        raise BadBody("malformed_json", "") from None

    # Recursive, plain: past the recursion limit it raises RecursionError, which _outcome
    # reads as malformed_json -- deeper than the cap either way.
    def depth(node: Any) -> int:
        if isinstance(node, tuple):
            return 1 + max((depth(v) for _, v in node[1]), default=0)
        if isinstance(node, list):
            return 1 + max((depth(item) for item in node), default=0)
        return 0

    if depth(tree) > MAX_DEPTH:
        raise BadBody("malformed_json", "")

    def strings(node: Any) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, tuple):
            return [s for k, v in node[1] for s in [k, *strings(v)]]
        if isinstance(node, list):
            return [s for item in node for s in strings(item)]
        return []

    def build(node: Any) -> Any:
        if isinstance(node, tuple):
            keys = [k for k, _ in node[1]]
            if len(set(keys)) != len(keys):
                raise BadBody("duplicate_key", "")
            return {k: build(v) for k, v in node[1]}
        if isinstance(node, list):
            return [build(item) for item in node]
        if isinstance(node, _Fraction):  # a whole number in any spelling is that integer
            value = float(node.text)
            exact = decimal.Decimal(node.text)
            whole = abs(value) <= 2**63 and exact == exact.to_integral_value()
            return int(exact) if whole else value
        return node

    data = build(tree)
    if any(any(0xD800 <= ord(c) <= 0xDFFF for c in s) for s in strings(tree)):
        raise BadBody("invalid_encoding", "")
    return data


def _outcome(load: Any, raw: bytes) -> Any:
    from service.http.body import BadBody

    try:
        return ("ok", load(raw))
    except BadBody as bad:
        return ("refused", bad.code)
    except RecursionError:
        return ("refused", "malformed_json")


def _nest(levels: int, shell: str, core: str) -> str:
    """``core`` inside ``levels`` copies of ``shell`` (a format with one ``%s``)."""
    head, tail = shell.split("%s")
    return head * levels + core + tail * levels


def _dumps(value: Any, ascii_only: bool) -> str:
    return __import__("json").dumps(value, ensure_ascii=ascii_only)


encodings = st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "utf-32-le"])
# Escapes where a lone surrogate hides, or only seems to: halves, pairs, an escaped backslash.
escapes = st.sampled_from(
    ["\\ud800", "\\uDFFF", "\\ud83d\\ude00", "\\ude00\\ud83d", "\\\\ud800", "\\u00e9", "x"]
)
texts = st.tuples(json_values, st.booleans()).map(lambda pair: _dumps(*pair))
with_escape = st.tuples(st.text(max_size=3), escapes, st.booleans()).map(
    lambda t: f'{{"name": "{t[0].replace(chr(92), "").replace(chr(34), "")}{t[1]}", "x": {_dumps(t[0], t[2])}}}'
)
duplicated = st.tuples(st.text(max_size=2), json_values, json_values).map(
    lambda t: f'{{{_dumps(t[0], True)}: {_dumps(t[1], True)}, "k": [{{}}], {_dumps(t[0], True)}: {_dumps(t[2], True)}}}'
)
trailing = st.tuples(texts, st.sampled_from(["", " ", "\n", " x", "}", "{}", "\x00", ",1"])).map("".join)
documents = texts | with_escape | duplicated | trailing
# Nesting around the depth cap (64 levels), deeper than 3.11's decoder reaches, in arrays
# and objects, with a duplicate key or a lone surrogate inside, or brackets only in a string.
deep_bodies = st.tuples(
    st.sampled_from([1, 62, 63, 64, 65, 66, 200, 2000, 8000]),
    st.sampled_from(['[%s]', '{"k":%s}', '{"a":1,"b":[%s]}']),
    st.sampled_from(["0", "[]", "{}", '{"a":1,"a":2}', '"\\ud800"', '"' + "[" * 80 + '"']),
).map(lambda t: _nest(*t).encode())
raw_bodies = (
    st.tuples(documents, encodings).map(lambda pair: pair[0].encode(pair[1], "surrogatepass"))
    | st.binary(max_size=40)
    | st.sampled_from(
        [b"NaN", b"[Infinity]", b"-Infinity", b"", b"\xff", b"[" * 5000, b'{"a":1,"a":2}',
         b'{"a":1,"a":2,', b'{"a":{"b":1,"b":1}}', b'"\xed\xa0\x80"', b"\xef\xbb\xbf{}",
         b'{"n":"\\ud800"}', b'["\\ud83d\\ude00"]', b'{"\\udc00":1}', b"{} trailing"]
    )
    | deep_bodies
)


@settings(max_examples=600, deadline=None)
@given(raw_bodies)
def test_the_body_decoder_refuses_exactly_what_the_strict_reference_refuses(raw: bytes) -> None:
    """The prebuilt decoder of the body reader (its shortcuts: a pairs hook in the C
    scanner, the surrogate walk only after an escape) accepts what the step-by-step
    reference accepts, with the same value, and refuses the rest with the same code."""
    from service.http.body import _loads

    assert _outcome(_loads, raw) == _outcome(_strict_reference, raw)
