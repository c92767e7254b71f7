"""The event store on Redis Streams: one stream per game, appends by Lua script.

Concurrency: every append runs the ``APPEND`` script, which Redis executes
atomically, so two writers racing on one version cannot both succeed -- the
second sees the bumped head and gets :class:`VersionConflict` with the current
version. Nothing is locked while a client decides; the optimistic check at the
end is the only synchronisation, which keeps slow clients from blocking others.
A retried call whose first attempt did get through (a lost reply) is harmless:
it conflicts, or -- with an idempotency key -- gets the first result back.

Durability is Redis's: with ``appendonly yes`` and ``appendfsync always`` an
acknowledged append survives a crash (``everysec`` may lose the last second).

Sealing: every write is sealed with seal 2 (``events.chain.sealing``), whose digests are
keyed by the game's secret seed. ``create`` has the seed; ``append`` takes it from
a per-process cache of commitment keys (seeds never change), fetching it with one
GET only on a miss -- the first append of a game in this process -- so the append
hot path gains no round trip. The keys stay in this object: no read path returns
them.

Feed: a store built with ``feed_shards`` (standalone Redis only) publishes every
successful append's ``(game, version)`` to the projection feed (``events.redis_adapter.feed``)
inside the same script -- atomic with the append, and no second round trip. On a
cluster the shard stream lives in another slot, so there the caller publishes
after the append (``events.redis_adapter.feed.publish``).

Connections: on a plain ``redis.Redis`` the ``APPEND`` script runs on a lane of
connections kept between calls (``events.redis_adapter.lane``: same replies, errors
and retries as ``execute_command``, without the pool's checkout and release -- a fifth
to a quarter of a one-event append's time on the bench machine: ``bench/lane_bench.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from redis.cluster import RedisCluster

from engine.model import JSON, Event
from events.chain.batch import fingerprint, parse_record, prepare
from events.chain.sealing import CommitKey
from events.chain.verify import digest_problem, first_break
from events.model import defaults
from events.model.canonical import ZERO_HASH, canonical_json
from events.model.clock import Clock, utc_now
from events.model.errors import (
    ChainBroken,
    GameNotFinished,
    IdempotencyKeyReused,
    InvalidEvent,
    StoreError,
    VersionConflict,
)
from events.model.port import AppendResult, GameRef, Snapshot
from events.model.records import GAME_ENDED, SEED_REVEALED, check_creation
from events.model.upcasting import Upcasters
from events.redis_adapter import feed
from events.redis_adapter.keys import GameKeys
from events.redis_adapter.reader import RedisEventReader
from events.redis_adapter.scripts import APPEND, SAVE_SNAPSHOT, Script
from events.schemas import SchemaRegistry, default_registry

if TYPE_CHECKING:  # the archive (SQLAlchemy) is imported only where one is configured
    from events.archive.lazy import LazyArchive as ArchiveStore


class RedisEventStore(RedisEventReader):
    """:class:`events.model.port.EventStore` on Redis. Thread-safe; share one per process."""

    def __init__(
        self,
        client: Any,
        *,
        prefix: str | None = None,
        clock: Clock = utc_now,
        registry: SchemaRegistry | None = None,
        upcasters: Upcasters | None = None,
        feed_shards: int | None = None,
        idempotency_ttl_s: int = defaults.IDEMPOTENCY_TTL_S,
        archive: ArchiveStore | None = None,
    ) -> None:
        """``idempotency_ttl_s``: the game's idempotency records expire this many seconds
        after the append that ends it (set in that very script; 0: never).
        ``feed_shards``: publish each append to the projection feed with that many
        shards, inside the append script (None: don't; see the module docstring).
        ValueError for a shard count below 1 or with a cluster client."""
        super().__init__(client, prefix=prefix, upcasters=upcasters, archive=archive)
        if feed_shards is not None and (feed_shards < 1 or _is_cluster(client)):
            raise ValueError("feed_shards needs a positive count and a standalone Redis")
        self._feed_shards = feed_shards
        # A standalone Redis also publishes every append on the game's live channel, for
        # the streams following it (service.http.live); a cluster has no pub/sub per slot
        # from a script, so its streams block per waiter instead.
        self._live = not _is_cluster(client)
        self._idempotency_ttl_s = idempotency_ttl_s
        self._clock = clock
        self._registry = registry or default_registry()
        # The hot path runs on the reads' lane of kept connections (none on a cluster,
        # or with a pool it does not suit: events.redis_adapter.lane.lane_for).
        self._append = Script(client, APPEND, self._lane)
        self._save_snapshot = Script(client, SAVE_SNAPSHOT)
        # game id -> its commitment key (seal 2), built once per game and process: a
        # seed never changes, so an entry never goes stale. Bounded like the head
        # cache; a miss costs one GET of the seed.
        self._commit_keys: dict[str, CommitKey] = {}

    def create(
        self,
        game: GameRef,
        events: Sequence[Event],
        seed: str,
        *,
        actor: JSON,
        command: JSON | None = None,
        idempotency_key: str | None = None,
    ) -> AppendResult:
        """See :meth:`events.model.port.EventStore.create`; the seed is stored atomically with
        the events. ValueError if ``events`` do not start with a ``GameCreated`` that
        commits to ``seed``."""
        check_creation(events, seed)
        return self._write(game, events, 0, idempotency_key, actor, command, seed)

    def append(
        self,
        game: GameRef,
        events: Sequence[Event],
        expected_version: int,
        idempotency_key: str | None = None,
        *,
        actor: JSON,
        command: JSON | None = None,
    ) -> AppendResult:
        """See :meth:`events.model.port.EventStore.append`. Also raises GameNotFinished (or
        InvalidEvent for a wrong seed) for a ``SeedRevealed`` before ``GameEnded``, and
        GameNotFound for a game without a stored seed (never created: nothing to seal
        with -- start games with :meth:`create`)."""
        if type(expected_version) is not int or expected_version < 0:
            raise ValueError(
                f"expected_version must be a non-negative int, got {expected_version!r}"
            )
        for event in events:
            if event.type == SEED_REVEALED:
                self._check_reveal(game.id, events)
                break
        return self._write(game, events, expected_version, idempotency_key, actor, command)

    @property
    def publishes_feed(self) -> bool:
        """Whether every successful append also publishes to the feed (in its script)."""
        return self._feed_shards is not None
    def recall(
        self, game_id: str, idempotency_key: str, actor: JSON, command: JSON | None
    ) -> AppendResult | None:
        """The result stored under ``idempotency_key`` (``duplicate=True``), or None if the
        key is unknown. Lets a caller answer a retry before deciding anew on a state
        that has moved on. Raises IdempotencyKeyReused if the key was used by another
        actor or command."""
        _check_idempotency_key(idempotency_key)
        record = self._redis.hget(self.keys(game_id).idempotency, idempotency_key)
        if record is None:
            return None
        result, stored_fingerprint = parse_record(game_id, record)
        if stored_fingerprint != fingerprint(actor, command):
            raise IdempotencyKeyReused(game_id, idempotency_key)
        return result

    def save_snapshot(self, game_id: str, snapshot: Snapshot) -> bool:
        """See :meth:`events.model.port.EventStore.save_snapshot`."""
        args = [snapshot.version, snapshot.rules_version, snapshot.payload]
        return bool(self._save_snapshot([self.keys(game_id).snapshot], args))

    def stored_texts(self, game_id: str) -> list[str]:
        """Every event of ``game_id`` up to its head, as the exact text stored (canonical
        JSON, not upcast, not redacted; [] for an unknown game): what a complete export
        holds. Hidden facts included -- for admins, or for anyone once the game ended."""
        keys = self.keys(game_id)
        head = self._fetch_head(keys)
        if head.version == 0 and self.archive is not None:
            return self.archive.texts(game_id)  # archived: the same texts, [] if unknown
        texts: list[str] = []
        while len(texts) < head.version:
            start, stop = f"{len(texts) + 1}-0", f"{head.version}-0"
            entries = self._redis.xrange(keys.events, start, stop, count=defaults.READ_CHUNK)
            if not entries:
                break
            texts += [_decoded(fields[self._field]) for _, fields in entries]
        return texts

    def restore(
        self, game_id: str, history: Sequence[Mapping[str, Any]], seed: str
    ) -> AppendResult:
        """Write a whole stored history as it is -- versions, times, actors, commands and
        hashes -- with its secret ``seed``: the store's half of importing an export that
        ``events.audit`` verified. All or nothing, by the same ``APPEND`` script as every
        write (expected version 0, no idempotency key; see its KEYS/ARGV header).

        Raises VersionConflict if ``game_id`` already holds a game, in Redis or in the
        archive (nothing is written),
        ChainBroken unless ``history`` (stored dicts) is one valid chain of ``game_id``
        from version 1, ValueError unless it starts with a GameCreated committing to
        ``seed``. Seal-2 events must match their digests under ``seed`` (ChainBroken).
        Event schemas are the caller's to check (the audit does).
        """
        archived = self.archive.head(game_id) if self.archive is not None else None
        if archived is not None:  # the id is taken by an archived game
            raise VersionConflict(game_id, 0, archived.version)
        broken = first_break(game_id, enumerate(history, start=1)) if history else (1, "no events")
        if broken is not None:
            raise ChainBroken(game_id, *broken)
        created = self._upcasters.upcast(dict(history[0]))
        check_creation([Event(created["type"], created["data"])], seed)
        key = CommitKey(seed, game_id)
        for version, raw in enumerate(history, start=1):
            problem = digest_problem(key, raw)
            if problem is not None:
                raise ChainBroken(game_id, version, problem)
        ended = next((v for v, raw in enumerate(history, 1) if raw["type"] == GAME_ENDED), 0)
        keys = self.keys(game_id)
        last_hash = history[-1]["hash"]
        texts = [canonical_json(dict(raw)) for raw in history]
        options: list[Any] = ["seed", seed] + (["ended", ended] if ended else [])
        reply = self._run_append(game_id, keys, [0, ZERO_HASH, last_hash], texts, options)
        if _decoded(reply[0]) != "ok":
            return self._refused(game_id, 0, _decoded(reply[0]), reply[1], reply[2])
        self._remember(game_id, reply[1], last_hash)
        return AppendResult(game_id, 1, reply[1], last_hash)

    def _write(
        self,
        game: GameRef,
        events: Sequence[Event],
        expected: int,
        idem_key: str | None,
        actor: JSON,
        command: JSON | None,
        seed: str | None = None,
    ) -> AppendResult:
        keys = self.keys(game.id)
        if idem_key is not None:
            _check_idempotency_key(idem_key)
        prev_hash = self._head_hash_for(game.id, keys, expected)
        commit_key = self._commit_key(game.id, seed)
        stamped = self._clock()
        batch = prepare(
            game,
            events,
            expected,
            prev_hash,
            time=stamped,
            actor=actor,
            command=command,
            registry=self._registry,
            keyed=idem_key is not None,
            key=commit_key,
        )
        options: list[Any] = []
        if idem_key is not None:
            options += ("idem", idem_key, batch.record)
        if batch.ended_at:
            options += ("ended", batch.ended_at)
            if self._idempotency_ttl_s:
                options += ("expire", self._idempotency_ttl_s)
        if seed:
            options += ("seed", seed)
        last_hash = batch.sealed[-1].hash
        texts = [sealed.text for sealed in batch.sealed]
        reply = self._run_append(game.id, keys, [expected, prev_hash, last_hash], texts, options)
        status = reply[0]
        if status == b"ok" or status == "ok":
            self._remember(game.id, reply[1], last_hash)
            if seed is not None:
                self._cache_commit_key(commit_key)
            return AppendResult(game.id, expected + 1, reply[1], last_hash, time=stamped)
        status = _decoded(status)
        if status == "dup":
            result, stored_fingerprint = parse_record(game.id, reply[1])
            if stored_fingerprint != fingerprint(actor, command):
                raise IdempotencyKeyReused(game.id, idem_key or "")
            return result
        return self._refused(game.id, expected, status, reply[1], reply[2])

    def _refused(
        self, game_id: str, expected: int, status: str, version: int, other: Any
    ) -> AppendResult:
        """Raise the error for a script answer other than ok/dup (nothing was written)."""
        if status == "conflict":
            self._remember(game_id, version, other if self._text else other.decode())
            raise VersionConflict(game_id, expected, version)
        self._heads.pop(game_id, None)
        if status == "chain":
            raise ChainBroken(
                game_id, expected + 1, "the batch does not continue the stored head hash"
            )
        raise StoreError(
            f"game {game_id!r}: head at version {version} but the stream holds {other}"
        )

    def _run_append(
        self, game_id: str, keys: GameKeys, head: list[Any], texts: list[str], options: list[Any]
    ) -> Any:
        """Run ``scripts.APPEND`` (see its header): ``head`` = its ARGV[1..3], ``texts``
        the events, ``options`` its options but the feed and the live channel, which
        are added here -- and only the KEYS the options need."""
        if self._live:
            options = [*options, "live", keys.live]
        if self._feed_shards is not None:
            feed_key = feed.feed_key(self._prefix, feed.shard_of(game_id, self._feed_shards))
            script_keys = [keys.head, keys.events, keys.idempotency, keys.seed, feed_key]
            options = [*options, "feed", game_id, feed.FEED_MAXLEN]
        elif options:
            script_keys = [keys.head, keys.events, keys.idempotency, keys.seed]
        else:
            script_keys = [keys.head, keys.events]
        return self._append(script_keys, [*head, len(texts), *texts, *options])

    def _head_hash_for(self, game_id: str, keys: GameKeys, expected: int) -> str:
        """The hash the batch must continue: from the cache, else from Redis. If the
        game is not at ``expected`` any hash will do -- the script then answers from
        the idempotency record or with a conflict, and writes nothing."""
        cached = self._heads.get(game_id)
        if cached is not None and cached[0] == expected:
            return cached[1]
        if expected == 0:
            return ZERO_HASH
        head = self._fetch_head(keys)
        self._remember(game_id, head.version, head.hash)
        return head.hash

    def _commit_key(self, game_id: str, seed: str | None) -> CommitKey:
        """The game's commitment key: built from ``seed`` when creating, else cached,
        else built from the stored seed (GameNotFound if there is none)."""
        if seed is not None:
            return CommitKey(seed, game_id)  # cached only once the creation is stored
        key = self._commit_keys.get(game_id)
        if key is None:
            key = CommitKey(self.secret_seed(game_id), game_id)
            self._cache_commit_key(key)
        return key

    def _cache_commit_key(self, key: CommitKey) -> None:
        if len(self._commit_keys) >= defaults.HEAD_CACHE_SIZE:
            self._commit_keys.clear()  # crude but lock-free; a miss costs one GET
        self._commit_keys[key.game_id] = key

    def _check_reveal(self, game_id: str, events: Sequence[Event]) -> None:
        """The seed may only be revealed once the game has ended, and must be its seed."""
        ended = any(e.type == GAME_ENDED for e in events) or self.head(game_id).finished
        if not ended:
            raise GameNotFinished(game_id)
        seed = self.secret_seed(game_id)
        for i, event in enumerate(events):
            if event.type == SEED_REVEALED and event.data.get("seed") != seed:
                raise InvalidEvent(SEED_REVEALED, i, "this is not the game's seed")


def _is_cluster(client: Any) -> bool:
    return isinstance(client, RedisCluster)


def _decoded(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _check_idempotency_key(key: str | None) -> None:
    # Room for the actor's scope the application puts in front of a client's key.
    longest = defaults.MAX_IDEMPOTENCY_KEY + defaults.MAX_IDEMPOTENCY_SCOPE
    if key is not None and (not isinstance(key, str) or not 0 < len(key) <= longest):
        raise ValueError(f"an idempotency key is a string of 1..{longest} characters")
