"""Export, verify, replay and import against the real store on a real Redis.

Games are played by the engine and written batch by batch through
``RedisEventStore.create`` / ``append``, exactly as the application writes them.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from support.audit import LiveGame, live_game, rehash, seed_of, write_batches
from support.redis import TestRedis, delete_prefix, unique_prefix

from engine.abluxxen.cards import codes_to_json
from engine.schlitzohr.material import COLOURS
from events.audit.export import export_history
from events.audit.importing import (
    GAME_EXISTS,
    MALFORMED,
    TAMPERED,
    UNFINISHED,
    ImportRefused,
    import_lines,
)
from events.audit.replay import tables
from events.audit.verify import verify_lines
from events.model.canonical import canonical_json
from events.model.errors import ChainBroken, GameNotFound, VersionConflict
from events.model.redaction import ADMIN, AUDITOR, SPECTATOR
from events.redis_adapter.store import RedisEventStore

CONFIGS = [("schlitzohr", n) for n in (2, 3, 4)] + [("abluxxen", n) for n in (2, 3, 4, 5)]


@functools.cache
def played(game: str, players: int, persons: int = 1, max_commands: int | None = None) -> LiveGame:
    seed = seed_of(f"it-{game}-{players}-{persons}-{max_commands}")
    return live_game(game, players, seed, persons=persons, max_commands=max_commands)


@pytest.fixture
def other_store(redis_target: TestRedis) -> Iterator[RedisEventStore]:
    """A second "server": the same Redis under a prefix of its own."""
    client = redis_target.client()
    prefix = unique_prefix()
    yield RedisEventStore(client, prefix=prefix)
    delete_prefix(client, prefix)
    client.close()


# -- export + verify ---------------------------------------------------------------------


@pytest.mark.parametrize("game,players", CONFIGS)
def test_the_export_of_a_finished_game_verifies(
    store: RedisEventStore, game: str, players: int
) -> None:
    live = played(game, players, persons=players // 2)
    write_batches(store, "g1", live)
    exported = export_history(store, "g1", SPECTATOR)  # after the end: complete for anyone
    assert exported.complete
    assert exported.lines == store.stored_texts("g1")
    report = verify_lines(exported.text().splitlines())
    assert report.ok, report.discrepancy
    assert report.events == len(live.tables)
    assert report.result == live.tables[-1].state.result.to_json()


@pytest.mark.parametrize("game,players", [("schlitzohr", 3), ("abluxxen", 4)])
def test_the_replay_from_the_store_equals_the_live_game_at_every_version(
    store: RedisEventStore, game: str, players: int
) -> None:
    live = played(game, players)
    write_batches(store, "g1", live)
    replayed = list(tables(store.read_all("g1", ADMIN)))
    assert [dataclasses.replace(t, created="") for t in replayed] == live.tables


def test_export_of_an_unknown_game(store: RedisEventStore) -> None:
    with pytest.raises(GameNotFound):
        export_history(store, "nope", ADMIN)


# -- a running game ----------------------------------------------------------------------


def _true_secrets(live: LiveGame) -> list[str]:
    """Hidden facts of the live game's true state, as JSON text: every ear colour
    (Schlitzohr), or the order of the undrawn pile (Abluxxen)."""
    state = live.tables[-1].state
    if live.game == "schlitzohr":
        return [canonical_json([COLOURS[c] for c in state.colour])]
    return [canonical_json(codes_to_json(state.order[state.pos :]))[1:-1]]  # no brackets


@pytest.mark.parametrize("game,players", [("schlitzohr", 3), ("abluxxen", 4)])
def test_the_export_of_a_running_game_holds_no_hidden_fact(
    store: RedisEventStore, game: str, players: int
) -> None:
    live = played(game, players, persons=players, max_commands=60)
    assert live.tables[-1].status == "running"
    write_batches(store, "g1", live)
    full = [json.loads(line) for line in store.stored_texts("g1")]
    tokens = [e["private"]["token_hash"] for e in full if e["type"] == "SeatTaken"]
    assert len(tokens) == players + 1  # every person, and the one who left
    for viewer in [*range(players), None]:
        exported = export_history(store, "g1", SPECTATOR if viewer is None else viewer)
        assert not exported.complete
        lines = [json.loads(line) for line in exported.lines]
        assert len(lines) == len(full)
        for mine, true in zip(lines, full, strict=True):
            public = ("version", "type", "data", "actor", "visible_to", "time", "hash")
            assert [mine[k] for k in public] == [true[k] for k in public]
            sees_private = viewer is not None and viewer in true["visible_to"]
            assert mine["private"] == (true["private"] if sees_private else None)
            sent = viewer is not None and true["actor"].get("seat") == viewer
            assert mine["command"] == (true["command"] if sent else None)
        # Long secrets (orders, colours, hands, token hashes) cannot appear by chance.
        text = exported.text()
        hidden = [
            canonical_json(e["private"])
            for e in full
            if e["private"] and viewer not in e["visible_to"]
        ]
        secrets = [s for s in hidden if len(s) > 40] + tokens + _true_secrets(live)
        assert not [s for s in secrets if s in text]
    complete = export_history(store, "g1", ADMIN).text()
    assert all(s in complete for s in _true_secrets(live) + tokens)  # the check can fail


def test_an_admin_exports_a_running_game_completely_but_it_cannot_be_verified(
    store: RedisEventStore,
) -> None:
    live = played("abluxxen", 3, max_commands=30)
    write_batches(store, "g1", live)
    exported = export_history(store, "g1", ADMIN)
    assert exported.complete and exported.lines == store.stored_texts("g1")
    assert not export_history(store, "g1", AUDITOR).complete  # an auditor waits for the end
    report = verify_lines(exported.lines)
    assert report.discrepancy is not None
    assert (report.discrepancy.kind, report.discrepancy.version) == (
        "structure",
        len(live.tables) + 1,
    )


# -- import ------------------------------------------------------------------------------


def _keys(store: RedisEventStore, client: Any) -> list[Any]:
    return list(client.scan_iter(match=store.prefix.replace("*", r"\*") + "*"))


@pytest.mark.parametrize("game", ["schlitzohr", "abluxxen"])
def test_an_imported_game_is_stored_exactly_as_exported(
    store: RedisEventStore, other_store: RedisEventStore, game: str
) -> None:
    live = played(game, 3)
    write_batches(store, "g1", live)
    exported = export_history(store, "g1", SPECTATOR)
    imported = import_lines(other_store, exported.lines)
    assert (imported.game_id, imported.game, imported.version) == ("g1", game, len(exported.lines))
    assert other_store.stored_texts("g1") == exported.lines
    assert other_store.head("g1") == store.head("g1")
    assert other_store.verify("g1") == len(exported.lines)
    assert other_store.secret_seed("g1") == live.seed
    assert export_history(other_store, "g1", SPECTATOR).lines == exported.lines
    final = list(tables(other_store.read_all("g1", ADMIN)))[-1]
    assert final.status == "finished" and final.seed == live.seed


def test_import_refuses_an_existing_id_and_writes_nothing(store: RedisEventStore) -> None:
    write_batches(store, "g1", played("schlitzohr", 2))
    before = store.stored_texts("g1")
    with pytest.raises(ImportRefused) as refused:
        import_lines(store, before)
    assert refused.value.code == GAME_EXISTS
    assert store.stored_texts("g1") == before


@pytest.mark.store
def test_refused_imports_write_nothing(
    store: RedisEventStore, other_store: RedisEventStore, redis_client: redis.Redis
) -> None:
    live = played("schlitzohr", 3)
    write_batches(store, "g1", live)
    items = [json.loads(line) for line in store.stored_texts("g1")]
    at = next(i for i, e in enumerate(items) if e["type"] == "DieRolled")
    items[at]["data"]["value"] = items[at]["data"]["value"] % 6 + 1
    cases = [
        (TAMPERED, [canonical_json(e) for e in rehash(items)]),
        (UNFINISHED, store.stored_texts("g1")[:-1]),
        (MALFORMED, ["{}"]),
        (MALFORMED, []),
    ]
    for code, lines in cases:
        with pytest.raises(ImportRefused) as refused:
            import_lines(other_store, lines)
        assert refused.value.code == code
        assert _keys(other_store, redis_client) == []
    assert "version" in str(refused.value)


@pytest.mark.store
def test_restore_checks_the_chain_and_the_seed_and_refuses_an_existing_id(
    store: RedisEventStore, other_store: RedisEventStore, redis_client: redis.Redis
) -> None:
    live = played("abluxxen", 2)
    write_batches(store, "g1", live)
    items = [json.loads(line) for line in store.stored_texts("g1")]
    broken = [*items[:5], *items[6:]]
    with pytest.raises(ChainBroken) as caught:
        other_store.restore("g1", broken, live.seed)
    assert caught.value.version == 6
    with pytest.raises(ValueError, match="commit"):
        other_store.restore("g1", items, seed_of("wrong"))
    assert _keys(other_store, redis_client) == []
    result = other_store.restore("g1", items, live.seed)
    assert (result.first_version, result.last_version, result.head_hash) == (
        1,
        len(items),
        items[-1]["hash"],
    )
    with pytest.raises(VersionConflict):
        other_store.restore("g1", items, live.seed)
    assert other_store.stored_texts("g1") == store.stored_texts("g1")
    assert other_store.stored_texts("unknown") == []
