"""The store's pure parts: sealing, the chain verifier, redaction, schemas, upcasting,
keys, the state codec and game records. No Redis needed."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.counter import counted, counter_registry

from engine.abluxxen.sets import CardSet
from engine.model import Event, OptionSpec, Result
from events.chain.sealing import CommitKey, commit_digest, seal, seal_v1
from events.chain.verify import digest_problem, event_hash, event_hash_v1, first_break, verify
from events.model import defaults, records
from events.model.canonical import ZERO_HASH, canonical_json
from events.model.clock import utc_now
from events.model.envelope import SYSTEM, Envelope, bot_actor, seat_actor
from events.model.errors import (
    ChainBroken,
    InvalidEvent,
    SnapshotError,
    UnknownEventType,
    UpcastError,
)
from events.model.redaction import ADMIN, AUDITOR, SPECTATOR, redact
from events.model.upcasting import Upcasters, default_upcasters
from events.redis_adapter.keys import GameKeys
from events.schemas.envelope import EnvelopeSchema
from events.schemas.fields import ISO_UTC_RE
from events.state.codec import StateCodec

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.text(max_size=8),
    st.floats(allow_nan=False, allow_infinity=False),
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)
OBJECTS = st.dictionaries(st.text(max_size=6), JSON_VALUES, max_size=5)
TIME = "2025-01-01T00:00:00.000000Z"
SEED = "5e" * 32


def sealed_chain(n: int = 5) -> list[dict[str, Any]]:
    """``n`` sealed counter events, as stored dicts."""
    events = [counted(i % 2, i, "note" if i % 2 else None) for i in range(n)]
    return [
        json.loads(s.text)
        for s in seal(
            "g1",
            events,
            1,
            ZERO_HASH,
            time=TIME,
            actor=SYSTEM,
            command=None,
            schema_version=lambda t: 1,
            key=CommitKey(SEED, "g1"),
        )
    ]


def broken_at(chain: list[dict[str, Any]], entry_versions: list[int] | None = None) -> int | None:
    """The version ``first_break`` names for ``chain`` (None if it holds)."""
    versions = entry_versions or [e["version"] for e in chain]
    found = first_break("g1", list(zip(versions, chain, strict=True)))
    return None if found is None else found[0]


@settings(max_examples=60, deadline=None)
@given(
    data=OBJECTS,
    private=st.none() | OBJECTS,
    command=st.none() | OBJECTS,
    seats=st.lists(st.integers(0, 5), max_size=3),
    version=st.integers(1, 10**9),
    game_id=st.from_regex(r"[A-Za-z0-9_-]{1,12}", fullmatch=True),
)
def test_sealed_text_is_the_canonical_form_and_hash(
    data, private, command, seats, version, game_id
) -> None:
    """Seal 2 against its straightforward definition (``docs/audit.md``)."""
    event = Event("SomeType", data, private, tuple(seats))
    [sealed] = seal(
        game_id,
        [event],
        version,
        "ab" * 32,
        time=TIME,
        actor=seat_actor(3),
        command=command,
        schema_version=lambda t: 7,
        key=CommitKey(SEED, game_id),
    )

    def digest(part: str, value: Any) -> str | None:
        if value is None:
            return None
        message = f"tabletop/commit/v2\x00{game_id}\x00{version}\x00{part}\x00" + json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
        return hmac.new(bytes.fromhex(SEED), message.encode(), hashlib.sha256).hexdigest()

    public = {
        "actor": seat_actor(3),
        "command_digest": digest("command", command),
        "data": data,
        "game_id": game_id,
        "prev_hash": "ab" * 32,
        "private_digest": digest("private", private),
        "schema_version": 7,
        "seal": 2,
        "time": TIME,
        "type": "SomeType",
        "version": version,
        "visible_to": seats if private is not None else [],
    }
    expected_hash = hashlib.sha256(
        json.dumps(public, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    ).hexdigest()
    full = {**public, "private": private, "command": command}
    assert sealed.hash == expected_hash == event_hash(full)
    assert sealed.text == canonical_json(
        {**public, "private": private, "command": command, "hash": sealed.hash}
    )
    assert public["private_digest"] == (
        None if private is None else commit_digest(SEED, game_id, version, "private", private)
    )


@settings(max_examples=30, deadline=None)
@given(
    data=OBJECTS,
    private=st.none() | OBJECTS,
    command=st.none() | OBJECTS,
    seats=st.lists(st.integers(0, 5), max_size=3),
    version=st.integers(1, 10**9),
)
def test_seal1_text_is_the_canonical_form_and_hash(data, private, command, seats, version) -> None:
    """The kept seal-1 function against the definition old histories were written with."""
    event = Event("SomeType", data, private, tuple(seats))
    [sealed] = seal_v1(
        "g1",
        [event],
        version,
        "ab" * 32,
        time=TIME,
        actor=seat_actor(3),
        command=command,
        schema_version=lambda t: 7,
    )
    body = {
        "actor": seat_actor(3),
        "command": command,
        "data": data,
        "game_id": "g1",
        "prev_hash": "ab" * 32,
        "private": private,
        "schema_version": 7,
        "time": TIME,
        "type": "SomeType",
        "version": version,
        "visible_to": seats if private is not None else [],
    }
    assert sealed.hash == event_hash_v1(body) == event_hash(body)
    assert sealed.text == canonical_json({**body, "hash": sealed.hash})


def test_seal2_commitments_are_salted_and_per_event() -> None:
    """Equal private parts at two versions get unrelated digests; no digest without
    the seed; a redacted seal-2 event still verifies link by link."""
    events = [counted(1, 1, "same"), counted(1, 1, "same")]
    chain = [
        json.loads(s.text)
        for s in seal(
            "g1", events, 1, ZERO_HASH, time=TIME, actor=SYSTEM, command={"kind": "c"},
            schema_version=lambda t: 1, key=CommitKey(SEED, "g1"),
        )
    ]
    assert chain[0]["private"] == chain[1]["private"]
    assert chain[0]["private_digest"] != chain[1]["private_digest"]
    assert chain[0]["command_digest"] != chain[1]["command_digest"]
    redacted = [{**e, "private": None, "command": None} for e in chain]
    assert broken_at(redacted) is None  # links hold without the hidden parts
    assert first_break("g1", enumerate(redacted, 1), SEED) is not None  # not as complete
    assert first_break("g1", enumerate(chain, 1), SEED) is None
    wrong_seed = first_break("g1", enumerate(chain, 1), "77" * 32)
    assert wrong_seed == (1, "the private part does not match its private_digest")
    assert digest_problem(CommitKey(SEED, "g1"), {**chain[1], "command": {"kind": "d"}}) == (
        "the command part does not match its command_digest"
    )
    assert broken_at([{**chain[0], "seal": 3}, chain[1]]) == 1
    for seed in ("ab" * 16, "cd" * 64, "ef" * 100):  # RFC 2104 key padding and hashing
        assert CommitKey(seed, "g1").digest(3, "private", '{"a":1}') == commit_digest(
            seed, "g1", 3, "private", {"a": 1}
        )
    assert broken_at([{**chain[0], "private_digest": "0" * 64}, chain[1]]) == 1


def test_sealing_links_a_batch_and_makes_valid_envelopes() -> None:
    chain = sealed_chain(5)
    assert [e["version"] for e in chain] == [1, 2, 3, 4, 5]
    assert chain[0]["prev_hash"] == ZERO_HASH
    assert all(b["prev_hash"] == a["hash"] for a, b in zip(chain, chain[1:], strict=False))
    assert all(EnvelopeSchema().validate(e) == {} for e in chain)
    assert broken_at(chain) is None


def test_canonical_json_is_strict_and_stable() -> None:
    assert canonical_json({"b": (1, 2), "a": "é"}) == '{"a":"é","b":[1,2]}'
    with pytest.raises(ValueError):
        canonical_json({"x": math.nan})


@pytest.mark.parametrize(
    "field, value, at",
    [
        ("data", {"seat": 0, "n": 99}, 3),
        ("prev_hash", "1" * 64, 3),
        ("version", 9, 3),
        ("game_id", "g2", 3),
    ],
)
def test_verifier_names_the_first_broken_version(field, value, at) -> None:
    chain = sealed_chain(5)
    chain[at - 1] = {**chain[at - 1], field: value}
    assert broken_at(chain, [1, 2, 3, 4, 5]) == at


def test_verifier_on_rehashed_edits_gaps_and_heads() -> None:
    chain = sealed_chain(5)
    forged = {**chain[1], "data": {"seat": 1, "n": 42}}
    forged["hash"] = event_hash(forged)  # a forger who recomputed the hash breaks the next link
    assert broken_at([chain[0], forged, *chain[2:]]) == 3
    assert broken_at([chain[0], *chain[2:]]) == 2
    entries = [(e["version"], e) for e in chain]
    verify("g1", entries, (5, chain[-1]["hash"]))
    with pytest.raises(ChainBroken) as info:
        verify("g1", entries, (7, chain[-1]["hash"]))
    assert info.value.version == 6
    with pytest.raises(ChainBroken):
        verify("g1", entries, (5, ZERO_HASH))


def envelope(private: dict | None, visible: list[int], actor: dict) -> Envelope:
    return Envelope(
        "g1",
        4,
        "Counted",
        1,
        TIME,
        actor,
        {"kind": "count"},
        {"seat": 1, "n": 2},
        private,
        visible,
        ZERO_HASH,
        "f" * 64,
    )


@pytest.mark.parametrize(
    "viewer, sees_private, sees_command",
    [
        (1, True, True),
        (2, True, False),
        (0, False, False),
        (SPECTATOR, False, False),
        (AUDITOR, False, False),
        (ADMIN, True, True),
    ],
)
def test_redaction_while_running(viewer, sees_private, sees_command) -> None:
    full = envelope({"note": "x"}, [1, 2], bot_actor(1))
    seen = redact(full, viewer, game_finished=False)
    assert (seen.private is not None, seen.command is not None) == (sees_private, sees_command)
    assert seen.redacted == (not (sees_private and sees_command))
    assert (seen.version, seen.hash, seen.data, seen.visible_to) == (
        4,
        full.hash,
        full.data,
        [1, 2],
    )
    assert redact(full, viewer, game_finished=True) is full


def test_redaction_of_public_events_and_bad_viewers() -> None:
    public = replace(envelope(None, [], SYSTEM), command=None)
    assert redact(public, SPECTATOR, False) is public
    with pytest.raises(TypeError):
        redact(public, True, False)  # type: ignore[arg-type]


def test_upcasters_apply_in_order_without_touching_the_input() -> None:
    ups = Upcasters()
    ups.register("T", 1, lambda raw: {**raw, "data": {**raw["data"], "b": raw["data"]["a"]}})
    ups.register("T", 2, lambda raw: {**raw, "data": {"c": raw["data"]["b"] * 2}})
    stored = {"type": "T", "schema_version": 1, "data": {"a": 2}}
    assert ups.upcast(stored) == {"type": "T", "schema_version": 3, "data": {"c": 4}}
    assert stored == {"type": "T", "schema_version": 1, "data": {"a": 2}}
    other = {"type": "U", "schema_version": 1}
    assert ups.upcast(other) is other
    with pytest.raises(ValueError):
        ups.register("T", 1, lambda raw: raw)
    with pytest.raises(UpcastError):
        default_upcasters().upcast({"type": "GameCreated", "schema_version": 1, "data": {}})


def test_keys_share_the_game_hash_tag_and_refuse_bad_ids() -> None:
    keys = GameKeys.of("tt:", "abc-1")
    assert keys.events == "tt:game:{abc-1}:events"
    assert all("{abc-1}" in k for k in (keys.head, keys.idempotency, keys.seed, keys.snapshot))
    for bad_id in ("", "a{b}", "a b", "x" * 65, "a*", None):
        with pytest.raises(ValueError):
            GameKeys.of("tt:", bad_id)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        GameKeys.of("t{t}:", "g1")


def test_registry_rejects_bools_unknown_types_and_stray_private_parts() -> None:
    reg = counter_registry()
    for _ in range(2):  # the second round answers from the memo and must agree
        reg.check("counter", counted(0, 1), texts=('{"n":1,"seat":0}', "null"))
        with pytest.raises(InvalidEvent):
            reg.check(
                "counter",
                Event("Counted", {"seat": 0, "n": True}),
                texts=('{"n":true,"seat":0}', "null"),
            )
        with pytest.raises(InvalidEvent):
            reg.check("counter", Event("Counted", {"seat": 0, "n": 1}, None, (True,)))
        with pytest.raises(InvalidEvent):
            reg.check(
                "schlitzohr",
                Event("DieRolled", {"seat": 0, "value": 3, "purpose": "turn"}, {"x": 1}),
            )
        with pytest.raises(UnknownEventType):
            reg.check("counter", Event("DieRolled", {}))
        reg.check_metadata("Counted", TIME, seat_actor(1), {"kind": "x"})
        bad_actors: tuple[Any, ...] = (
            {"kind": "seat", "seat": True},
            {"kind": "system", "seat": 1},
            {"kind": "bot"},
            [],
            {},
        )
        for actor in bad_actors:
            with pytest.raises(InvalidEvent):
                reg.check_metadata("Counted", TIME, actor, None)  # type: ignore[arg-type]
    with pytest.raises(InvalidEvent):
        reg.check_metadata("Counted", "yesterday", SYSTEM, None)
    with pytest.raises(InvalidEvent):
        reg.check_metadata("Counted", TIME, SYSTEM, {"no": "kind"})


def test_state_codec_round_trips_engine_values() -> None:
    codec = StateCodec()
    state = (
        Result((1, -2), (0,), "done", 7),
        frozenset({3, 1}),
        {"a": [1, (2,)], 5: None, "$": 1},
        CardSet(None, 0, 2),
        OptionSpec("x", "choice", "a", "d", choices=("a", "b")),
        {1, 2},
        1.5,
    )
    text = codec.encode(state)
    back = codec.decode(text)
    assert back == state and type(back[3]) is CardSet and type(back[2]["a"]) is list
    assert codec.encode(back) == text


@pytest.mark.parametrize(
    "payload",
    [
        '{"$":"dc","c":"os:system","v":{}}',
        '{"$":"dc","c":"engine.model:__class__","v":{}}',
        '{"$":"dc","c":"engine.model:JSON","v":{}}',
        '{"$":"nt","c":"engine.model:Result","v":[]}',
        '{"$":"const","c":"engine.schlitzohr.board:Board","v":"x"}',
        '{"$":"dc","c":"engine.model:Result","v":{"x":1}}',
        '{"$":"weird","v":1}',
        "not json",
    ],
)
def test_state_codec_refuses_anything_but_engine_types(payload: str) -> None:
    with pytest.raises(SnapshotError):
        StateCodec().decode(payload)


def test_state_codec_refuses_to_encode_foreign_objects() -> None:
    with pytest.raises(SnapshotError):
        StateCodec().encode((object(),))


def test_records_commit_to_the_seed() -> None:
    seed = records.new_seed()
    assert len(seed) == 64 and records.commitment(seed) != seed
    created = Event("GameCreated", {"commitment": records.commitment(seed)})
    records.check_creation([created], seed)
    for events, bad_seed in (
        ([], seed),
        ([counted(0, 1)], seed),
        ([created], records.new_seed()),
        ([created], "zz"),
    ):
        with pytest.raises(ValueError):
            records.check_creation(events, bad_seed)


def test_defaults_and_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ISO_UTC_RE.match(utc_now())
    monkeypatch.setenv(defaults.SNAPSHOT_EVERY_ENV, "7")
    monkeypatch.setenv(defaults.KEY_PREFIX_ENV, "x:")
    assert (defaults.snapshot_every_from_env(), defaults.key_prefix_from_env()) == (7, "x:")
    monkeypatch.setenv(defaults.SNAPSHOT_EVERY_ENV, "0")
    with pytest.raises(ValueError):
        defaults.snapshot_every_from_env()
