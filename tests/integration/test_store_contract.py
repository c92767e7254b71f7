"""The event store's contract, one abstract suite run against every backend.

``StoreContract`` is collected through its subclasses: the session's Redis (a
throwaway server, or ``TABLETOP_TEST_REDIS_URL``; marker ``store``) and a local
3-master Redis Cluster. Thread races start from a barrier so they really race.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import redis
from support.counter import counted, counter_game, counter_store, created, fold
from support.redis import TestRedis, delete_prefix

from engine.model import Event
from events.chain.sealing import commit_digest
from events.model import records
from events.model.canonical import ZERO_HASH
from events.model.envelope import SYSTEM, bot_actor, seat_actor
from events.model.errors import (
    ChainBroken,
    GameNotFound,
    IdempotencyKeyReused,
    InvalidEvent,
    StoreError,
    UnknownEventType,
    VersionConflict,
)
from events.model.port import AppendResult, GameRef, Snapshot
from events.model.redaction import ADMIN, AUDITOR, SPECTATOR
from events.redis_adapter.store import RedisEventStore

GAME_ENDED = Event("GameEnded", {"reason": "done", "scores": [1, 0], "winners": [0], "turns": 3})


def new_game(store: RedisEventStore, game_id: str = "g1") -> tuple[GameRef, str]:
    ref, seed = counter_game(game_id), records.new_seed()
    store.create(ref, [created(seed)], seed, actor=SYSTEM)
    return ref, seed


def race(threads: int, work: Callable[[int], Any]) -> list[Any]:
    """Run ``work(i)`` in ``threads`` threads released together; results or exceptions."""
    barrier = threading.Barrier(threads)
    results: list[Any] = [None] * threads

    def run(i: int) -> None:
        barrier.wait()
        try:
            results[i] = work(i)
        except Exception as exc:  # noqa: BLE001 - the test inspects what each thread got
            results[i] = exc

    pool = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    return results


class StoreContract:
    """What every backend guarantees. Subclasses provide the ``backend`` fixture."""

    @pytest.fixture
    def s(self, backend: RedisEventStore) -> RedisEventStore:
        return backend

    def test_create_then_read(self, s: RedisEventStore) -> None:
        ref, seed = new_game(s)
        [event] = s.read_all(ref.id, SPECTATOR)
        assert (event.version, event.type, event.schema_version) == (1, "GameCreated", 2)
        assert event.data["commitment"] == records.commitment(seed)
        assert event.prev_hash == ZERO_HASH and s.head(ref.id).hash == event.hash

    def test_creating_a_taken_id_conflicts_and_keeps_the_seed(self, s: RedisEventStore) -> None:
        ref, seed = new_game(s)
        other = records.new_seed()
        with pytest.raises(VersionConflict) as info:
            s.create(ref, [created(other)], other, actor=SYSTEM)
        assert info.value.current_version == 1
        assert s.secret_seed(ref.id) == seed

    def test_versions_are_consecutive_stream_ids(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        result = s.append(ref, [counted(0, 1), counted(0, 2)], 1, actor=seat_actor(0))
        assert (result.first_version, result.last_version, result.duplicate) == (2, 3, False)
        ids = [entry_id for entry_id, _ in raw_entries(s, s.keys(ref.id).events)]
        assert ids == [b"1-0", b"2-0", b"3-0"]
        assert [e.version for e in s.read_all(ref.id, ADMIN)] == [1, 2, 3]
        assert [e.version for e in s.read_range(ref.id, ADMIN, 2, 2)] == [2]
        assert [e.version for e in s.read_range(ref.id, ADMIN, 3)] == [3]

    def test_stale_or_future_version_conflicts_and_writes_nothing(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        s.append(ref, [counted(0, 1)], 1, actor=seat_actor(0))
        for expected in (1, 5):
            with pytest.raises(VersionConflict) as info:
                s.append(ref, [counted(1, 1), counted(1, 2)], expected, actor=seat_actor(1))
            assert (info.value.current_version, info.value.expected_version) == (2, expected)
        assert s.head(ref.id).version == 2 and len(s.read_all(ref.id, ADMIN)) == 2

    def test_invalid_batch_writes_nothing(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        bad_batches = [
            [counted(0, 1), Event("Counted", {"seat": 0, "n": True})],
            [counted(0, 1), Event("Counted", {"seat": 0})],
            [Event("Counted", {"seat": 0, "n": 1}, {"note": 5}, (0,))],
            [counted(0, 1), Event("Nope", {})],
            [],
        ]
        for batch in bad_batches:
            with pytest.raises(InvalidEvent):
                s.append(ref, batch, 1, actor=seat_actor(0))
        with pytest.raises(UnknownEventType):
            s.append(ref, [Event("GameSetUp", {})], 1, actor=seat_actor(0))
        with pytest.raises(InvalidEvent):
            s.append(ref, [counted(0, 1)], 1, actor={"kind": "seat", "seat": True})
        assert s.head(ref.id).version == 1

    def test_idempotent_retry_returns_first_result(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        first = s.append(
            ref,
            [counted(0, 1)],
            1,
            "key-1",
            actor=seat_actor(0),
            command={"kind": "count"},
        )
        s.append(ref, [counted(1, 1)], 2, actor=seat_actor(1))
        again = s.append(
            ref,
            [counted(0, 1)],
            1,
            "key-1",
            actor=seat_actor(0),
            command={"kind": "count"},
        )
        assert again == AppendResult(ref.id, 2, 2, first.head_hash, duplicate=True)
        assert s.head(ref.id).version == 3
        with pytest.raises(IdempotencyKeyReused):
            s.append(
                ref, [counted(0, 1)], 3, "key-1", actor=seat_actor(0), command={"kind": "other"}
            )
        assert s.head(ref.id).version == 3

    def test_idempotency_records_are_slim(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        s.append(ref, [counted(0, 1)], 1, "k", actor=seat_actor(0), command={"kind": "count"})
        record = s._redis.hget(s.keys(ref.id).idempotency, "k")
        assert sorted(json.loads(record)) == ["fingerprint", "first", "hash", "last"]
        assert len(record) < 250

    def test_old_records_with_a_response_still_answer(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        first = s.append(ref, [counted(0, 1)], 1, "k", actor=seat_actor(0), command={"kind": "count"})
        key = s.keys(ref.id).idempotency
        old = {**json.loads(s._redis.hget(key, "k")), "response": '{"version":2}'}
        s._redis.hset(key, "k", json.dumps(old))
        again = s.append(ref, [counted(0, 1)], 1, "k", actor=seat_actor(0), command={"kind": "count"})
        assert again == AppendResult(
            ref.id, 2, 2, first.head_hash, duplicate=True, response='{"version":2}'
        )

    def test_idempotency_records_expire_once_the_game_ended(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        s.append(ref, [counted(0, 1)], 1, "k", actor=seat_actor(0), command={"kind": "count"})
        key = s.keys(ref.id).idempotency
        assert s._redis.ttl(key) == -1  # kept while the game runs
        s.append(ref, [GAME_ENDED], 2, actor=SYSTEM)
        assert 0 < s._redis.ttl(key) <= 24 * 3600

    def test_conflicting_keyed_append_can_retry_with_the_same_key(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        s.append(ref, [counted(1, 1)], 1, actor=seat_actor(1))
        with pytest.raises(VersionConflict):
            s.append(ref, [counted(0, 1)], 1, "k", actor=seat_actor(0))
        assert s.append(ref, [counted(0, 1)], 2, "k", actor=seat_actor(0)).last_version == 3

    def test_two_writers_race_on_one_version(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        results = race(2, lambda i: s.append(ref, [counted(i, 1)], 1, actor=seat_actor(i)))
        wins = [r for r in results if isinstance(r, AppendResult)]
        losses = [r for r in results if isinstance(r, VersionConflict)]
        assert len(wins) == 1 and len(losses) == 1
        assert losses[0].current_version == 2
        assert len(s.read_all(ref.id, ADMIN)) == 2

    def test_redaction_per_viewer_until_the_end(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        s.append(ref, [counted(0, 1, "secret")], 1, actor=bot_actor(0), command={"kind": "count"})
        own, other, spectator, auditor, admin = (
            s.read_range(ref.id, viewer, 2)[0] for viewer in (0, 1, SPECTATOR, AUDITOR, ADMIN)
        )
        assert (
            own.private == {"note": "secret"}
            and own.command == {"kind": "count"}
            and not own.redacted
        )
        for hidden in (other, spectator, auditor):
            assert hidden.private is None and hidden.command is None and hidden.redacted
            assert (hidden.version, hidden.hash, hidden.visible_to) == (2, own.hash, [0])
        assert admin == own
        s.append(ref, [GAME_ENDED], 2, actor=SYSTEM)
        assert s.head(ref.id).ended_at == 3
        for viewer in (1, SPECTATOR, AUDITOR):
            assert s.read_range(ref.id, viewer, 2)[0] == own

    def test_tail_waits_for_new_events(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        assert s.tail(ref.id, 1, SPECTATOR, block_ms=0) == []
        timer = threading.Timer(
            0.1, lambda: s.append(ref, [counted(2, 7, "x")], 1, actor=seat_actor(2))
        )
        timer.start()
        got = s.tail(ref.id, 1, SPECTATOR, block_ms=5000)
        timer.join()
        assert [(e.version, e.data["n"], e.private) for e in got] == [(2, 7, None)]
        assert s.tail(ref.id, 0, 2, block_ms=0)[1].private == {"note": "x"}
        assert s.tail(ref.id, 2, SPECTATOR, block_ms=50) == []

    def test_seed_stays_out_of_every_read_path(self, s: RedisEventStore) -> None:
        ref, seed = new_game(s)
        s.append(ref, [counted(0, 1, "n")], 1, actor=seat_actor(0))
        for viewer in (0, 1, SPECTATOR, AUDITOR, ADMIN):
            texts = [
                repr(e) for e in s.read_all(ref.id, viewer) + s.tail(ref.id, 0, viewer, block_ms=0)
            ]
            assert all(seed not in text for text in texts)
        assert s.secret_seed(ref.id) == seed
        with pytest.raises(GameNotFound):
            s.secret_seed("nope")

    def test_verify_catches_an_edited_event_at_its_version(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        for n in range(1, 6):
            s.append(ref, [counted(n % 2, n)], n, actor=seat_actor(n % 2))
        assert s.verify(ref.id) == 6
        key = s.keys(ref.id).events
        entries = raw_entries(s, key)
        forged = entries[3][1][b"e"].replace(b'"n":3', b'"n":30')
        s._redis.delete(key)  # a stream entry cannot be edited in place: rebuild the stream
        for entry_id, fields in entries:
            s._redis.xadd(key, {"e": forged if entry_id == b"4-0" else fields[b"e"]}, id=entry_id)
        with pytest.raises(ChainBroken) as info:
            s.verify(ref.id)
        assert info.value.version == 4

    def test_every_write_is_seal_2_and_an_edited_private_part_fails_verify(
        self, s: RedisEventStore
    ) -> None:
        """A fresh store instance (commitment-key cache miss) seals with the stored seed;
        an edited private part leaves the hash intact (seal 2 does not hash it) but not
        its digest, which the server's verify checks with the seed."""
        ref, seed = new_game(s)
        fresh = RedisEventStore(s._redis, prefix=s.prefix, registry=s._registry)
        fresh.append(ref, [counted(0, 1, "hidden")], 1, actor=bot_actor(0), command={"kind": "c"})
        s.append(ref, [counted(1, 2, "also")], 2, actor=seat_actor(1), command={"kind": "c"})
        stored = [json.loads(t) for t in s.stored_texts(ref.id)]
        assert [e["seal"] for e in stored] == [2, 2, 2]
        for e in stored[1:]:
            for part in ("private", "command"):
                digest = commit_digest(seed, ref.id, e["version"], part, e[part])
                assert e[f"{part}_digest"] == digest
        assert s.verify(ref.id) == 3
        key = s.keys(ref.id).events
        entries = raw_entries(s, key)
        forged = entries[1][1][b"e"].replace(b'"note":"hidden"', b'"note":"guess"')
        s._redis.delete(key)
        for entry_id, fields in entries:
            s._redis.xadd(key, {"e": forged if entry_id == b"2-0" else fields[b"e"]}, id=entry_id)
        with pytest.raises(ChainBroken) as info:
            s.verify(ref.id)
        assert info.value.version == 2 and "private_digest" in str(info.value)

    def test_append_to_a_game_without_a_seed_is_refused(self, s: RedisEventStore) -> None:
        with pytest.raises(GameNotFound):
            s.append(counter_game("nobody"), [counted(0, 1)], 1, actor=seat_actor(0))

    def test_append_refuses_a_head_that_is_not_its_chain(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        s._redis.hset(s.keys(ref.id).head, "h", "f" * 64)
        fresh = RedisEventStore(s._redis, prefix=s.prefix, registry=s._registry)
        fresh._heads[ref.id] = (1, "e" * 64)  # a stale cache entry at the right version
        with pytest.raises(ChainBroken):
            fresh.append(ref, [counted(0, 1)], 1, actor=seat_actor(0))
        assert fresh.head(ref.id).version == 1

    @pytest.mark.parametrize("edit", ["extra entry", "deleted entry"])
    def test_a_hand_edited_stream_is_refused_whole(self, s: RedisEventStore, edit: str) -> None:
        ref, _ = new_game(s)
        events_key = s.keys(ref.id).events
        if edit == "extra entry":
            s._redis.xadd(events_key, {"e": "{}"}, id="2-0")
        else:
            s._redis.xdel(events_key, "1-0")
        length = s._redis.xlen(events_key)
        with pytest.raises(StoreError, match="stream holds"):
            s.append(ref, [counted(0, 1), counted(1, 2)], 1, actor=seat_actor(0))
        assert s._redis.xlen(events_key) == length
        assert s.head(ref.id).version == 1

    def test_the_append_script_checks_its_arguments_before_writing(
        self, s: RedisEventStore
    ) -> None:
        ref, _ = new_game(s)
        keys = s.keys(ref.id)
        head = s.head(ref.id)
        text = "{}"
        two_keys = [keys.head, keys.events]
        four_keys = [*two_keys, keys.idempotency, keys.seed]
        bad_calls: list[tuple[list[str], list[Any]]] = [
            (two_keys, [1, head.hash, "a" * 64, 0]),  # no events
            (two_keys, [1, head.hash, "a" * 64, 2, text]),  # fewer events than n
            (four_keys, [1, head.hash, "a" * 64, 1, text, "nope", 1]),  # unknown option
            (four_keys, [1, head.hash, "a" * 64, 1, text, "idem", "k"]),  # option cut short
            (two_keys, [1, head.hash, "a" * 64, 1, text, "seed", "ab"]),  # its key missing
            (four_keys, [1, head.hash, "a" * 64, 1, text, "feed", ref.id, 10]),  # no KEYS[5]
        ]
        for script_keys, args in bad_calls:
            with pytest.raises(redis.ResponseError):
                s._append(script_keys, args)
        assert s.head(ref.id) == head
        assert [e.version for e in s.read_all(ref.id, ADMIN)] == [1]

    def test_script_reloads_after_script_flush(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        s._redis.script_flush()  # on a cluster redis-py sends it to every primary
        assert s.append(ref, [counted(0, 1)], 1, actor=seat_actor(0)).last_version == 2

    def test_snapshots_keep_only_newer(self, s: RedisEventStore) -> None:
        assert s.load_snapshot("g9") is None
        assert s.save_snapshot("g9", Snapshot(10, "r1", "[1]"))
        assert not s.save_snapshot("g9", Snapshot(5, "r1", "[0]"))
        assert s.save_snapshot("g9", Snapshot(5, "r2", "[2]"))  # other rules: replaces
        assert s.load_snapshot("g9") == Snapshot(5, "r2", "[2]")

    def test_unknown_game_reads_empty(self, s: RedisEventStore) -> None:
        assert s.read_all("nobody", SPECTATOR) == [] and s.head("nobody").version == 0
        with pytest.raises(ValueError):
            s.read_all("bad{id}", SPECTATOR)
        with pytest.raises(ValueError):
            s.read_range("nobody", SPECTATOR, "1-0")  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            s.tail("nobody", -1, SPECTATOR)

    def test_state_fold_equals_replay(self, s: RedisEventStore) -> None:
        ref, _ = new_game(s)
        version = 1
        for n in range(20):
            version = s.append(
                ref, [counted(n % 3, n)], version, actor=seat_actor(n % 3)
            ).last_version
        assert fold(s.read_all(ref.id, ADMIN)) == tuple((n % 3, n) for n in range(20))


def raw_entries(s: RedisEventStore, key: str) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The stream's entries as bytes, whether or not the store's client decodes replies."""
    def b(value: Any) -> bytes:
        return value.encode() if isinstance(value, str) else value

    return [(b(i), {b(k): b(v) for k, v in fields.items()}) for i, fields in s._redis.xrange(key)]


@pytest.mark.store
class TestStoreOnServer(StoreContract):
    """The session's Redis: a throwaway server, or TABLETOP_TEST_REDIS_URL."""

    @pytest.fixture
    def backend(self, store: RedisEventStore) -> RedisEventStore:
        return store


@pytest.mark.store
class TestStoreOnServerAsText(StoreContract):
    """The session's Redis through a client that decodes replies to text: the reads on
    the lane (``events.redis_adapter.lane``) get ``str`` where they otherwise get bytes."""

    @pytest.fixture
    def backend(self, redis_target: TestRedis, key_prefix: str) -> Iterator[RedisEventStore]:
        client = redis_target.client(decode_responses=True)
        yield counter_store(client, key_prefix)
        delete_prefix(client, key_prefix)
        client.close()


@pytest.mark.store
class TestStoreOnCluster(StoreContract):
    """A local 3-master Redis Cluster: every key of a game in one slot, no CROSSSLOT."""

    @pytest.fixture
    def backend(self, cluster_store: RedisEventStore) -> RedisEventStore:
        return cluster_store

    def test_all_keys_of_a_game_share_one_slot(self, cluster_store: RedisEventStore) -> None:
        client = cluster_store._redis
        keys = cluster_store.keys("g1")
        slots = {
            client.keyslot(k)
            for k in (keys.events, keys.head, keys.idempotency, keys.seed, keys.snapshot)
        }
        assert len(slots) == 1
