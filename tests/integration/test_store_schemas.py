"""The append hot path's shortcuts agree with the straightforward definitions.

Each shortcut (``events.model.canonical``'s prebuilt encoder, ``events.model.clock``'s cached
second, the registry's memo on canonical texts, its lookup cache and the compiled
checks of ``events.schemas.fastcheck``) is checked against what it replaces:
``json.dumps``, ``datetime.strftime`` and marshmallow's own verdict. No Redis needed.
"""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.counter import COUNTER, CountedData, counter_registry

from engine import table
from engine.model import Event
from engine.playout import play
from engine.registry import get_game
from events.model import clock, records
from events.model.canonical import canonical_json
from events.model.clock import TIME_FORMAT, utc_now
from events.model.errors import InvalidEvent
from events.schemas import default_registry
from events.schemas.envelope import ActorSchema
from events.schemas.fastcheck import compile_schema
from events.schemas.fields import ISO_UTC_RE
from events.schemas.registry import EventType

TIME = "2025-01-01T00:00:00.000000Z"
KEYS = st.one_of(st.text(max_size=6), st.integers(-5, 5))
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**20), 10**20),
    st.text(max_size=8),
    st.floats(allow_nan=False, allow_infinity=False),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.text(max_size=6), inner, max_size=4),
        st.dictionaries(st.integers(-5, 5), inner, max_size=3),
    ),
    max_leaves=12,
)
# Actors near the valid ones, so both verdicts come up often.
SEAT_VALUES = st.one_of(
    st.integers(-2, 70), st.booleans(), st.floats(-1, 70), st.text(max_size=2), st.none()
)
ACTORS = st.one_of(
    st.fixed_dictionaries(
        {"kind": st.sampled_from(["seat", "bot", "system", "Seat", ""])},
        optional={"seat": SEAT_VALUES, "extra": SCALARS},
    ),
    st.dictionaries(st.sampled_from(["kind", "seat", "x"]), SCALARS, max_size=3),
)
REGISTRY = counter_registry()  # shared, so verdicts from earlier examples are memo hits


def dumps(obj: Any) -> str:
    return json.dumps(
        obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_canonical_json_is_json_dumps(value) -> None:
    assert canonical_json(value) == dumps(value)


def test_canonical_json_fails_as_json_dumps_does() -> None:
    cyclic: list[Any] = []
    cyclic.append(cyclic)
    bad: list[tuple[Any, type[Exception]]] = [
        ({"x": math.nan}, ValueError),
        ([math.inf], ValueError),
        ({"x": object()}, TypeError),
        ({"x": {1, 2}}, TypeError),
        ({1: "a", "b": 2}, TypeError),  # keys that do not sort
        (cyclic, ValueError),
    ]
    for value, error in bad:
        with pytest.raises(error):
            dumps(value)
        with pytest.raises(error):
            canonical_json(value)


@pytest.mark.parametrize(
    "nanos",
    [
        0,
        1,
        999_999_999,
        1_735_689_599_999_999_000,
        1_735_689_600_000_000_000,
        4_102_444_800_123_456_789,
    ],
)
def test_utc_now_formats_like_strftime(monkeypatch: pytest.MonkeyPatch, nanos: int) -> None:
    monkeypatch.setattr(clock.time, "time_ns", lambda: nanos)
    seconds, micros = divmod(nanos // 1000, 1_000_000)
    expected = datetime.fromtimestamp(seconds, UTC).replace(microsecond=micros)
    for _ in range(2):  # the second call answers from the cached second
        assert utc_now() == expected.strftime(TIME_FORMAT)


def test_utc_now_is_the_system_clock() -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    now = datetime.strptime(utc_now(), TIME_FORMAT).replace(tzinfo=UTC)
    assert ISO_UTC_RE.match(utc_now())
    assert before <= now <= datetime.now(UTC)


def metadata_ok(actor: Any, actor_text: str | None) -> bool:
    try:
        REGISTRY.check_metadata("Counted", TIME, actor, None, actor_text)
    except InvalidEvent:
        return False
    return True


@settings(max_examples=400, deadline=None)
@given(ACTORS)
def test_the_actor_memo_agrees_with_marshmallow(actor) -> None:
    # The actor, then its JSON round trip (same canonical text, maybe other Python
    # types): marshmallow must give both the same verdict, or a memo on the text
    # could answer for the wrong one.
    text = canonical_json(actor)
    expected = ActorSchema().validate(actor) == {}
    for value in (actor, json.loads(text)):
        assert (ActorSchema().validate(value) == {}) == expected
        assert metadata_ok(value, text) == expected
        assert metadata_ok(value, None) == expected


@settings(max_examples=300, deadline=None)
@given(
    data=st.fixed_dictionaries(
        {
            "seat": SEAT_VALUES,
            "n": st.one_of(st.integers(-2, 10**12), st.booleans(), st.floats(-1e3, 1e3)),
        },
        optional={"x": SCALARS},
    )
)
def test_the_event_memo_agrees_with_marshmallow(data) -> None:
    text = canonical_json(data)
    expected = CountedData().validate(data) == {}
    for value in (data, json.loads(text)):
        assert (CountedData().validate(value) == {}) == expected
        try:
            REGISTRY.check(COUNTER, Event("Counted", value), texts=(text, "null"))
        except InvalidEvent:
            assert not expected
        else:
            assert expected


def test_lookups_see_types_registered_later() -> None:
    registry = counter_registry()
    assert registry.lookup(COUNTER, "Counted").version == 1
    registry.register(COUNTER, EventType("Counted", CountedData(), version=2))
    assert registry.lookup(COUNTER, "Counted").version == 2
    assert registry.lookup("no-such-game", "GameEnded").name == "GameEnded"
    assert ("no-such-game", "GameEnded") not in registry._found  # only registered games


# --- events.schemas.fastcheck: compiled checks never accept what marshmallow refuses ---


def real_events() -> dict[str, list[tuple[str, Event]]]:
    """Events of a few real games of each type, and the shared ones, by event type."""
    seed = records.new_seed()
    found: list[tuple[str, Event]] = [
        ("schlitzohr", records.game_created(get_game("schlitzohr"), {}, 2, seed)),
        ("schlitzohr", table.seat_taken(0, "ada", token_hash="ab" * 32)),
        ("schlitzohr", table.seat_taken(1, "bob", bot="greedy")),
        ("schlitzohr", table.seat_left(1)),
        ("schlitzohr", table.game_started()),
        ("schlitzohr", records.seed_revealed(seed)),
    ]
    for game_type, players in (("schlitzohr", 2), ("schlitzohr", 4), ("abluxxen", 3)):
        for n in range(2):
            playout = play(get_game(game_type), players, b"fastcheck%d" % n)
            found += [(game_type, event) for event in playout.events]
    by_type: dict[str, list[tuple[str, Event]]] = {}
    for game_type, event in found:
        by_type.setdefault(event.type, []).append((game_type, event))
    return by_type


REAL_EVENTS = real_events()
TYPES = sorted(REAL_EVENTS)
DEFAULT = default_registry()
MUTANTS = st.one_of(
    SCALARS,
    st.integers(-3, 70),
    st.sampled_from(["X", "e5", "turn", "red", "z99", "", "0" * 64, True, 13, 14, 1.0]),
    st.lists(st.one_of(st.integers(-1, 14), st.sampled_from(["X", "e5", True, None])), max_size=3),
    st.dictionaries(st.sampled_from(["number", "count", "jokers", "3", "x"]), st.integers(-1, 14)),
)


def parts(game_type: str, event: Event) -> list[tuple[Any, Any]]:
    """(schema, value) of the event's data and private part."""
    entry = DEFAULT.lookup(game_type, event.type)
    found = [(entry.data, event.data)]
    if event.private is not None and entry.private is not None:
        found.append((entry.private, event.private))
    return found


def test_compiled_checks_accept_real_games() -> None:
    """Complete enough to matter: every real event passes its compiled check (bar the
    one schema with a cross-field rule, which stays marshmallow's)."""
    for game_type, event in (item for events in REAL_EVENTS.values() for item in events):
        for schema, value in parts(game_type, event):
            assert schema.validate(value) == {}
            check = compile_schema(schema)
            assert check is not None or type(schema).__name__ == "CardDrawn"
            assert check is None or check(value), (event.type, value)
    assert len(TYPES) > 25


def mutate(value: Any, path: list[Any], new: Any, drop: bool) -> Any:
    """``value`` with the item at ``path`` replaced by ``new`` (or removed)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        copy = dict(value)
        if drop and not rest:
            copy.pop(head, None)
        else:
            copy[head] = mutate(copy.get(head), rest, new, drop)
        return copy
    if isinstance(value, list | tuple) and isinstance(head, int) and head < len(value):
        copy_list = list(value)
        copy_list[head] = mutate(copy_list[head], rest, new, drop)
        return copy_list
    return value


def paths(value: Any) -> list[list[Any]]:
    """Every path into ``value``, plus an unknown key at each dict."""
    found: list[list[Any]] = [[]]
    if isinstance(value, dict):
        found.append(["unknown"])
        for key, item in value.items():
            found += [[key, *p] for p in paths(item)]
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value[:3]):
            found += [[i, *p] for p in paths(item)]
    return found


@settings(max_examples=1000, deadline=None)
@given(
    event_type=st.sampled_from(TYPES),
    pick=st.integers(0, 10**6),
    which=st.integers(0, 10**6),
    new=MUTANTS,
    drop=st.booleans(),
)
def test_compiled_checks_never_accept_what_marshmallow_refuses(
    event_type, pick, which, new, drop
) -> None:
    game_type, event = REAL_EVENTS[event_type][pick % len(REAL_EVENTS[event_type])]
    for schema, value in parts(game_type, event):
        check = compile_schema(schema)
        if check is None:
            continue
        options = paths(value)
        mutant = mutate(value, options[which % len(options)], new, drop)
        if check(mutant):
            assert schema.validate(mutant) == {}, (event.type, mutant)


BOUNDARY: tuple[Any, ...] = (
    None, True, False, 0, -1, 1, 6, 7, 13, 14, 15, 16, 63, 64, 65, 10**30, 1.0, 0.5,
    "", "X", "x" * 200, "e5", "a0", "turn", "red", "0" * 64, [], [1], ["X"], [True], {}, {"x": 1},
)  # fmt: skip


def test_compiled_checks_refuse_boundary_values_as_marshmallow_does() -> None:
    """Every boundary value at every place of a few events of each type (and every
    field dropped): whatever the compiled check accepts, marshmallow accepts."""
    for events in REAL_EVENTS.values():
        for game_type, event in events[:3]:
            for schema, value in parts(game_type, event):
                check = compile_schema(schema)
                if check is None:
                    continue
                for path in paths(value):
                    mutants = [mutate(value, path, new, False) for new in BOUNDARY]
                    mutants.append(mutate(value, path, None, True))
                    for mutant in mutants:
                        if check(mutant):
                            assert schema.validate(mutant) == {}, (event.type, mutant)
