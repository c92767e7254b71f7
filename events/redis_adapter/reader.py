"""Reading event histories from Redis Streams: ranges, whole histories, tails.

:class:`RedisEventReader` is the read side of the store (projectors and audits
need nothing more); :class:`~events.redis_adapter.store.RedisEventStore` extends it with
appends. Every read path redacts for its viewer (``events.model.redaction``) and
upcasts to the current schema versions (``events.model.upcasting``); none of them ever
returns a secret seed or a snapshot.

Works with ``redis.Redis`` and ``redis.cluster.RedisCluster`` clients, RESP2 or
RESP3, with or without ``decode_responses``. A read that needs several commands sends
them in one round trip: on a plain Redis on the lane of kept connections the store's
appends use (``events.redis_adapter.lane``, ``Lane.execute_many``), elsewhere as a
non-transactional pipeline -- over keys of one game, i.e. one slot of a cluster.

Archived games (``events.archive``, ``service.app.archiving``): given an archive, every
read falls back to it when Redis holds no head for the game -- one miss in Redis, then
the archive (whose heads are cached: an archived game never changes). A live game costs
nothing more: the miss is noticed in the round trip each read makes anyway. The move
deletes a game from Redis only after the archive committed it, so a reader always finds
it in one of the two.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from events.chain.verify import verify
from events.model import defaults
from events.model.canonical import ZERO_HASH
from events.model.envelope import Envelope
from events.model.errors import GameNotFound
from events.model.port import Head, Snapshot
from events.model.redaction import Viewer, sees_everything
from events.model.upcasting import Upcasters, default_upcasters
from events.redis_adapter.decode import (
    Entry,
    decode,
    decode_texts,
    entry_fields,
    redact_all,
    stored_dicts,
    stored_forms,
)
from events.redis_adapter.keys import GameKeys, check_prefix
from events.redis_adapter.lane import Lane, lane_for

if TYPE_CHECKING:  # the archive (SQLAlchemy) is imported only where one is configured
    from events.archive.lazy import LazyArchive as ArchiveStore


class RedisEventReader:
    """The read half of :class:`events.model.port.EventStore`. Thread-safe."""

    def __init__(
        self,
        client: Any,
        *,
        prefix: str | None = None,
        upcasters: Upcasters | None = None,
        archive: ArchiveStore | None = None,
    ) -> None:
        """``archive``: where games that Redis no longer holds are read from (None: nowhere)."""
        self._redis = client
        self.archive = archive
        self._prefix = check_prefix(defaults.key_prefix_from_env() if prefix is None else prefix)
        self._upcasters = upcasters or default_upcasters()
        # Reads and appends share a lane of kept connections where one applies (a
        # plain Redis: events.redis_adapter.lane.lane_for); elsewhere reads pipeline.
        self._lane = lane_for(client)
        self._text = bool(client.get_encoder().decode_responses)
        self._field: Any = "e" if self._text else b"e"
        self._keys: dict[str, GameKeys] = {}  # built once per game: ids are validated then
        # game id -> (version, hash) of the latest head this instance saw (in an append
        # or at the end of a read): saves the HMGET an append would otherwise need to
        # learn the hash it must continue. A stale entry only costs that HMGET.
        self._heads: dict[str, tuple[int, str]] = {}

    @property
    def prefix(self) -> str:
        return self._prefix

    @property
    def lane(self) -> Lane | None:
        """The lane this store's reads and appends run on (None: they use the client's
        pool): other calls on the hot path may share it (``service.http.ratelimit``)."""
        return self._lane

    def keys(self, game_id: str) -> GameKeys:
        """The Redis keys of ``game_id`` (ValueError for an invalid id)."""
        keys = self._keys.get(game_id) if type(game_id) is str else None
        if keys is None:
            if len(self._keys) >= defaults.HEAD_CACHE_SIZE:
                self._keys.clear()
            keys = self._keys[game_id] = GameKeys.of(self._prefix, game_id)
        return keys

    def head(self, game_id: str) -> Head:
        """See :meth:`events.model.port.EventStore.head`."""
        if self.archive is not None:
            archived = self.archive.cached_head(game_id)
            if archived is not None:
                return archived
        head = self._fetch_head(self.keys(game_id))
        if head.version == 0 and self.archive is not None:
            return self.archive.head(game_id) or head
        return head

    def archived_head(self, game_id: str) -> Head | None:
        """The game's head if it is in the archive and no longer in Redis (None otherwise)."""
        if self.archive is None:
            return None
        cached = self.archive.cached_head(game_id)
        if cached is not None:
            return cached
        if self._redis.exists(self.keys(game_id).head):
            return None
        return self.archive.head(game_id)

    def _read_archived(self, game_id: str, viewer: Viewer, first: int, last: int | None) -> list[Envelope]:
        """Versions ``first..last`` of an archived game for ``viewer``: in full once it
        finished, redacted as in Redis if it expired (its hidden facts stay hidden)."""
        assert self.archive is not None
        texts = self.archive.texts(game_id, max(first, 1), last)
        return redact_all(decode_texts(texts, self._upcasters), viewer, self._archived_finished(game_id))

    def _archived_finished(self, game_id: str) -> bool:
        """Whether the archived game finished (False: it expired, or is not archived)."""
        assert self.archive is not None
        head = self.archive.cached_head(game_id) or self.archive.head(game_id)
        return head is not None and head.finished

    def _remember(self, game_id: str, version: int, hash_: str) -> None:
        if len(self._heads) >= defaults.HEAD_CACHE_SIZE:
            self._heads.clear()  # crude but lock-free; a miss costs one HMGET
        self._heads[game_id] = (version, hash_)

    def _fetch_head(self, keys: GameKeys) -> Head:
        version, hash_, ended = self._redis.hmget(keys.head, "v", "h", "e")
        if version is None:
            return Head(0, ZERO_HASH)
        return Head(int(version), _str(hash_), int(ended) if ended is not None else None)

    def read_all(self, game_id: str, viewer: Viewer) -> list[Envelope]:
        """See :meth:`events.model.port.EventStore.read_all`."""
        return self.read_range(game_id, viewer, 1)

    def read_range(
        self, game_id: str, viewer: Viewer, first: int, last: int | None = None
    ) -> list[Envelope]:
        """See :meth:`events.model.port.EventStore.read_range`. Reads in chunks of
        ``defaults.READ_CHUNK``; the finished flag is read in the same round trip as
        the first chunk, so a game ending meanwhile is only ever redacted too much."""
        keys = self.keys(game_id)
        _check_version("first", first)
        if last is not None:
            _check_version("last", last)
        if self.archive is not None and self.archive.cached_head(game_id) is not None:
            return self._read_archived(game_id, viewer, first, last)
        finished = sees_everything(viewer, False)
        archive = self.archive is not None
        out: list[Envelope] = []
        start, stop = f"{first}-0", "+" if last is None else f"{last}-0"
        while True:
            if finished and not archive:  # the viewer sees everything anyway: skip the head lookup
                entries = self._redis.xrange(keys.events, start, stop, count=defaults.READ_CHUNK)
            else:
                entries, ended, exists = self._xrange_and_head(keys, start, stop)
                finished = finished or ended
                if not exists and not entries and self.archive is not None:
                    # Not (or no longer) in Redis: the rest is in the archive, if anywhere.
                    rest = first if not out else out[-1].version + 1
                    if last is not None and rest > last:
                        break
                    return redact_all(out, viewer, self._archived_finished(game_id)) + self._read_archived(
                        game_id, viewer, rest, last
                    )
            out.extend(decode(entries, self._field, self._upcasters))
            if len(entries) < defaults.READ_CHUNK:
                break
            start = f"{out[-1].version + 1}-0"
        if out and last is None:
            self._remember(game_id, out[-1].version, out[-1].hash)
        return redact_all(out, viewer, finished)

    def _xrange_and_head(self, keys: GameKeys, start: str, stop: str) -> tuple[list[Any], bool, bool]:
        """Entries, whether the game ended, whether Redis holds its head -- one round trip."""
        if self._lane is not None:
            raw, (version, ended) = self._lane.execute_many(
                ("XRANGE", keys.events, start, stop, "COUNT", defaults.READ_CHUNK),
                ("HMGET", keys.head, "v", "e"),
            )
            entries = [(entry_id, entry_fields(fields)) for entry_id, fields in raw]
            return entries, ended is not None, version is not None
        pipe = self._redis.pipeline(transaction=False)
        pipe.xrange(keys.events, start, stop, count=defaults.READ_CHUNK)
        pipe.hmget(keys.head, "v", "e")
        entries, (version, ended) = pipe.execute()
        return entries, ended is not None, version is not None

    def tail(
        self,
        game_id: str,
        after_version: int,
        viewer: Viewer,
        *,
        block_ms: int | None = None,
        count: int | None = None,
    ) -> list[Envelope]:
        """See :meth:`events.model.port.EventStore.tail` (XREAD BLOCK; ``block_ms=None`` waits
        ``defaults.TAIL_BLOCK_MS``, 0 returns at once). A streaming client loops:
        ``after = batch[-1].version`` after each non-empty batch."""
        keys = self.keys(game_id)
        _check_version("after_version", after_version)
        if self.archive is not None and self.archive.cached_head(game_id) is not None:
            # Archived (callers read the head first, which caches it): nothing will follow.
            return self._read_archived(game_id, viewer, after_version + 1, None)[: count or defaults.READ_CHUNK]
        block = defaults.TAIL_BLOCK_MS if block_ms is None else block_ms
        pipe = self._redis.pipeline(transaction=False)
        # The head is read after XREAD returns, so "finished" is never older than the events.
        pipe.xread(
            {keys.events: f"{after_version}-0"},
            count=count or defaults.READ_CHUNK,
            block=block or None,
        )
        # One HMGET says both whether the game ended (``e``) and whether Redis holds its
        # head at all (``v``, written with every append): one command, not two.
        pipe.hmget(keys.head, "v", "e")
        streams, (version, ended) = pipe.execute()
        finished = ended is not None
        if not streams:
            if version is None and self.archive is not None and self.archive.head(game_id) is not None:
                return self._read_archived(game_id, viewer, after_version + 1, None)[: count or defaults.READ_CHUNK]
            return []
        # RESP2 answers [[key, entries]], RESP3 {key: [entries]}.
        entries = streams[0][1] if isinstance(streams, list) else next(iter(streams.values()))[0]
        return redact_all(decode(entries, self._field, self._upcasters), viewer, finished)

    def stored_of(self, entries: Sequence[Entry]) -> list[dict[str, Any]]:
        """Stream entries someone else read from this store's streams (the HTTP layer's
        stream hub), decoded and upcast like every read here, as stored dicts -- not
        yet redacted: serve them only through ``events.model.redaction.served_form``.
        Entries may come from a client that decodes responses (``str`` field names) or
        not (``bytes``)."""
        if not entries:
            return []
        field = "e" if "e" in entries[0][1] else b"e"
        return stored_forms(entries, field, self._upcasters)

    def verify(self, game_id: str) -> int:
        """See :meth:`events.model.port.EventStore.verify`: checks every stored event (as
        stored, before upcasting) up to the head, and the head itself. Returns the
        verified version.

        The server holds the secret seed, so seal-2 events are also checked against
        their digests (a game without a stored seed: the links only).

        The head is read first and bounds the range, so appends racing with the
        check are simply not part of it (entries past the head are the ``APPEND``
        script's to notice: it refuses to write when head and stream disagree).
        """
        keys = self.keys(game_id)
        head = self._fetch_head(keys)
        if head.version == 0 and self.archive is not None:
            game = self.archive.read(game_id)
            if game is not None:
                dicts = [(v, json.loads(t)) for v, t in enumerate(game.texts, 1)]
                verify(game_id, dicts, (game.version, game.head_hash), game.seed)
                return game.version
        entries = self._redis.xrange(keys.events, "-", f"{head.version}-0") if head.version else []
        seed = self._redis.get(keys.seed) if head.version else None
        verify(
            game_id,
            stored_dicts(entries, self._field),
            (head.version, head.hash),
            None if seed is None else _str(seed),
        )
        return head.version

    def secret_seed(self, game_id: str) -> str:
        """See :meth:`events.model.port.EventStore.secret_seed`."""
        seed = self._redis.get(self.keys(game_id).seed)
        if seed is None and self.archive is not None:
            seed = self.archive.seed(game_id)
        if seed is None:
            raise GameNotFound(game_id)
        return _str(seed)

    def load_snapshot(self, game_id: str) -> Snapshot | None:
        """See :meth:`events.model.port.EventStore.load_snapshot`."""
        version, rules, payload = self._redis.hmget(self.keys(game_id).snapshot, "v", "r", "s")
        if version is None or rules is None or payload is None:
            return None
        return Snapshot(int(version), _str(rules), _str(payload))


def _check_version(name: str, value: int) -> None:
    if type(value) is not int or value < 0:
        raise ValueError(f"{name} must be a non-negative int, got {value!r}")


def _str(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
