"""Golden fixtures: every event type as stored, and old stored forms still load.

``tests/fixtures/events/<group>/<Type>.v<N>.json`` (seal 1) and
``<Type>.v<N>.seal2.json`` (seal 2), written by ``generate.py`` in that folder and
never overwritten, guard the stored form: if sealing, canonical JSON, hashing, the
commitments, a schema or an upcaster changes meaning, one of these fails. The
seal-1 files were stored before seal 2 existed: they must keep verifying.
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from engine.model import Event
from events.chain.sealing import CommitKey, seal, seal_v1
from events.chain.verify import digest_problem, event_hash
from events.model.canonical import canonical_json
from events.model.envelope import Envelope
from events.model.redaction import ADMIN
from events.model.upcasting import default_upcasters
from events.redis_adapter.store import RedisEventStore
from events.schemas import default_registry
from events.schemas.envelope import EnvelopeSchema
from events.schemas.shared import SHARED_TYPES

FIXTURES = Path(__file__).parents[1] / "fixtures" / "events"
FILES = sorted(FIXTURES.glob("*/*.v*.json"))
SEAL2_FILES = [p for p in FILES if p.name.endswith(".seal2.json")]
SEED = "00" * 31 + "2a"  # generate.py's: the key of the seal-2 fixtures' digests
REGISTRY = default_registry()
SHARED_NAMES = {entry.name for entry in SHARED_TYPES}


def group_game(path: Path) -> str:
    return "schlitzohr" if path.parent.name == "shared" else path.parent.name


def load(path: Path) -> tuple[str, dict]:
    text = path.read_text(encoding="utf-8").rstrip("\n")
    return text, json.loads(text)


def test_every_registered_type_has_a_current_fixture_under_both_seals() -> None:
    present = {(p.parent.name, p.name) for p in FILES}
    for game in REGISTRY.games():
        for name, entry in REGISTRY.types(game).items():
            group = "shared" if name in SHARED_NAMES else game
            for suffix in ("", ".seal2"):
                assert (group, f"{name}.v{entry.version}{suffix}.json") in present, (
                    f"no fixture{suffix} for {game}/{name}"
                )


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_is_canonical_and_its_hash_verifies(path: Path) -> None:
    text, raw = load(path)
    assert canonical_json(raw) == text
    assert raw["hash"] == event_hash(raw)
    suffix = f".seal{raw['seal']}" if "seal" in raw else ""
    assert path.name == f"{raw['type']}.v{raw['schema_version']}{suffix}.json"
    assert EnvelopeSchema().validate(raw) == {}


@pytest.mark.parametrize("path", SEAL2_FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_seal2_fixture_commits_to_its_hidden_parts(path: Path) -> None:
    _, raw = load(path)
    key = CommitKey(SEED, raw["game_id"])
    assert digest_problem(key, raw) is None
    for part in ("private", "command"):
        assert (raw[part] is None) == (raw[f"{part}_digest"] is None)
    hidden = {k: v for k, v in raw.items() if k not in ("private", "command")}
    assert event_hash(hidden) == raw["hash"]  # the hash does not cover the hidden parts
    if raw["private"] is not None:
        edited = {**raw, "private": {**raw["private"], "x": 1}}
        assert digest_problem(key, edited) == "the private part does not match its private_digest"
        assert digest_problem(CommitKey("11" * 32, raw["game_id"]), raw) is not None


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_fixture_upcasts_to_a_valid_current_event(path: Path) -> None:
    _, raw = load(path)
    current = default_upcasters().upcast(raw)
    entry = REGISTRY.lookup(group_game(path), current["type"])
    assert current["schema_version"] == entry.version
    assert EnvelopeSchema().validate(current) == {}
    event = Envelope.from_stored(current).to_event()
    REGISTRY.check(group_game(path), event)


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_sealing_the_fixture_content_reproduces_it(path: Path) -> None:
    text, raw = load(path)
    event = Event(raw["type"], raw["data"], raw["private"], tuple(raw["visible_to"]))
    key = CommitKey(SEED, raw["game_id"])
    sealing: Any = seal_v1 if "seal" not in raw else partial(seal, key=key)
    [sealed] = sealing(
        raw["game_id"],
        [event],
        raw["version"],
        raw["prev_hash"],
        time=raw["time"],
        actor=raw["actor"],
        command=raw["command"],
        schema_version=lambda t: raw["schema_version"],
    )
    assert (sealed.text, sealed.hash) == (text, raw["hash"])


def test_game_created_v1_loads_as_v2() -> None:
    _, old = load(FIXTURES / "shared" / "GameCreated.v1.json")
    _, new = load(FIXTURES / "shared" / "GameCreated.v2.json")
    upcast = default_upcasters().upcast(dict(old))
    assert upcast["schema_version"] == 2
    assert upcast["data"] == new["data"]
    assert "players" not in upcast["data"] and old["data"]["players"] == 4  # the input is untouched


@pytest.mark.store
def test_old_stored_event_loads_through_the_store_as_current(store: RedisEventStore) -> None:
    text, old = load(FIXTURES / "shared" / "GameCreated.v1.json")
    keys = store.keys(old["game_id"])
    store._redis.xadd(keys.events, {"e": text}, id="1-0")  # as the draft store wrote it
    store._redis.hset(keys.head, mapping={"v": 1, "h": old["hash"]})
    [event] = store.read_all(old["game_id"], ADMIN)
    assert event.schema_version == 2 and event.data["seats"] == 4
    assert event.data["commitment"] == old["data"]["seed_sha256"]
    assert store.verify(old["game_id"]) == 1  # the chain covers the bytes as stored
