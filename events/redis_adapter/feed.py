"""The notification feed: "game X reached version v", for the projector.

After every successful append ``{g: <game id>, v: <version>}`` is XADDed to one
of N shard streams ``<p>feed:{<shard>}``: on a standalone Redis by the store's
append script itself (``RedisEventStore(feed_shards=N)``, atomic with the append),
on a cluster by the application calling :func:`publish` after the append
(shard = CRC-32 of the game id mod N; N = ``TABLETOP_FEED_SHARDS``, default
:data:`DEFAULT_SHARDS`). Every notification of one game goes to the same shard.
Projectors read the shards through the consumer group :data:`GROUP`
(:class:`FeedConsumer`): each entry goes to one consumer, stays pending until it
is acknowledged, and is claimed by another consumer if its owner dies.

A notification is a hint, never the data: the projector reads the game's own
stream from its read model's checkpoint on, so duplicates, reordering and
coalescing are all harmless.

Failure window (a documented choice): on Redis Cluster a shard stream lives in
another slot than the game's keys, so the publish cannot be atomic with the
append. If the appender dies between the two, or the feed entry is trimmed
(:data:`FEED_MAXLEN`) before a projector read it, that game's read models stay
behind until its next append -- or until the projector's reconciliation pass
(``events.projections.reconcile``: on start and then every
``workers.projector.RECONCILE_EVERY_S``, it compares every game head with its read
model's checkpoint) projects it. That is the failure window: at most one
reconciliation period, and only for a game nobody writes to meanwhile. Readers never see
the gap: ``read_view(..., min_version)`` falls back to the store.

N must be the same for publishers and projectors. After changing it, restart the
projectors with the new N: entries left in old shards are then never read, and the
reconciliation pass covers the games they named.
"""

from __future__ import annotations

import os
import zlib
from dataclasses import dataclass
from typing import Any

from redis.exceptions import ResponseError

from events.redis_adapter.keys import check_game_id, check_prefix

FEED_SHARDS_ENV = "TABLETOP_FEED_SHARDS"
"""Environment variable overriding :data:`DEFAULT_SHARDS`."""

DEFAULT_SHARDS = 4
"""Number of feed shard streams. More shards spread the feed over more cluster
slots (and more projector threads); each one costs a blocking read per projector."""

FEED_MAXLEN = 100_000
"""Approximate length cap per shard stream (``XADD MAXLEN ~``). Entries are only
hints, so trimming unread ones costs latency, never correctness (see above)."""

GROUP = "projector"
"""The consumer group every projector process joins."""

GAME_FIELD, VERSION_FIELD = "g", "v"


def shards_from_env() -> int:
    """The configured shard count; ValueError unless a positive integer."""
    raw = os.environ.get(FEED_SHARDS_ENV)
    shards = DEFAULT_SHARDS if raw is None else int(raw)
    if shards < 1:
        raise ValueError(f"{FEED_SHARDS_ENV} must be a positive integer, got {raw!r}")
    return shards


def shard_of(game_id: str, shards: int) -> int:
    """The shard of ``game_id``: stable across processes and machines (CRC-32, not ``hash``)."""
    return zlib.crc32(game_id.encode()) % shards


def feed_key(prefix: str, shard: int) -> str:
    """``<p>feed:{<shard>}``: each shard its own key and, on a cluster, its own slot."""
    return f"{check_prefix(prefix)}feed:{{{shard}}}"


def publish(
    client: Any, prefix: str, game_id: str, version: int, *, shards: int | None = None
) -> Any:
    """Tell the projectors that ``game_id`` reached ``version``; returns what XADD returns
    (the entry id, or on a pipeline the queued command: ``client`` may be a pipeline).

    Call it after every successful append (not atomic with it: see the module
    docstring). Raises ValueError for an invalid game id, ``redis.RedisError`` when
    Redis is down -- the append stands regardless, and reconciliation catches up.
    """
    count = shards_from_env() if shards is None else shards
    key = feed_key(prefix, shard_of(check_game_id(game_id), count))
    fields = {GAME_FIELD: game_id, VERSION_FIELD: version}
    return client.xadd(key, fields, maxlen=FEED_MAXLEN, approximate=True)


@dataclass(frozen=True, slots=True)
class Notification:
    """One feed entry. ``game_id`` is None for an entry that cannot be parsed (or was
    trimmed while pending): acknowledge it and move on."""

    shard: int
    entry_id: str
    game_id: str | None
    version: int


class FeedConsumer:
    """One consumer of the group :data:`GROUP` on every shard.

    Entries a consumer read stay pending until :meth:`ack`; a consumer that
    restarts under the same name gets its own pending entries back from
    :meth:`pending`, and :meth:`claim` takes over the entries of consumers that
    have been silent for a while. Each method works on one shard, i.e. one key, so
    it runs unchanged on Redis Cluster.
    """

    def __init__(
        self, client: Any, prefix: str, *, shards: int, consumer: str, group: str = GROUP
    ) -> None:
        self._redis = client
        self.keys = [feed_key(prefix, shard) for shard in range(shards)]
        self.consumer = consumer
        self.group = group

    def ensure_groups(self) -> None:
        """Create the group on every shard (and the shard stream itself) if missing.

        A new group starts at the beginning of the stream: entries published before
        any projector existed are still read.
        """
        for key in self.keys:
            try:
                self._redis.xgroup_create(key, self.group, id="0", mkstream=True)
            except ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    def read(self, shard: int, count: int, block_ms: int | None = None) -> list[Notification]:
        """New entries of ``shard``, waiting up to ``block_ms`` for one (None or 0: no wait;
        Redis's own ``BLOCK 0`` would wait forever)."""
        return self._readgroup(shard, ">", count, block_ms or None)

    def pending(self, shard: int, count: int, after: str = "0") -> list[Notification]:
        """This consumer's own pending entries of ``shard`` with ids after ``after``."""
        return self._readgroup(shard, after, count, None)

    def claim(self, shard: int, min_idle_ms: int, count: int = 100) -> None:
        """Take over every entry of ``shard`` pending longer than ``min_idle_ms`` at any
        consumer; they then show up in :meth:`pending` (XAUTOCLAIM, Redis >= 6.2)."""
        cursor: Any = "0-0"
        while True:
            reply = self._redis.xautoclaim(
                self.keys[shard], self.group, self.consumer, min_idle_ms, cursor, count=count
            )
            cursor = reply[0]
            if cursor in (b"0-0", "0-0"):
                return

    def ack(self, notifications: list[Notification]) -> None:
        """Acknowledge ``notifications`` (all of one shard, or of several)."""
        by_shard: dict[int, list[str]] = {}
        for note in notifications:
            by_shard.setdefault(note.shard, []).append(note.entry_id)
        for shard, ids in by_shard.items():
            self._redis.xack(self.keys[shard], self.group, *ids)

    def prune(self, idle_ms: int) -> int:
        """Remove consumers other than this one that hold nothing and were idle longer
        than ``idle_ms`` (dead processes); returns how many were removed."""
        removed = 0
        for key in self.keys:
            for info in self._redis.xinfo_consumers(key, self.group):
                name = _text(info["name"])
                if name != self.consumer and info["pending"] == 0 and info["idle"] > idle_ms:
                    self._redis.xgroup_delconsumer(key, self.group, name)
                    removed += 1
        return removed

    def _readgroup(
        self, shard: int, start: str, count: int, block_ms: int | None
    ) -> list[Notification]:
        reply = self._redis.xreadgroup(
            self.group, self.consumer, {self.keys[shard]: start}, count=count, block=block_ms
        )
        if not reply:
            return []
        # RESP2 answers [[key, entries]], RESP3 {key: [entries]}.
        entries = reply[0][1] if isinstance(reply, list) else next(iter(reply.values()))[0]
        return [_notification(shard, entry_id, fields) for entry_id, fields in entries]


def _notification(shard: int, entry_id: Any, fields: Any) -> Notification:
    """Parse one entry; a deleted or malformed one gets ``game_id`` None."""
    fields = {_text(k): _text(v) for k, v in (fields or {}).items()}
    game_id, version = fields.get(GAME_FIELD), fields.get(VERSION_FIELD, "")
    if game_id is None or not version.isdigit():
        return Notification(shard, _text(entry_id), None, 0)
    return Notification(shard, _text(entry_id), game_id, int(version))


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
