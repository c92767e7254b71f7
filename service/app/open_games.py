"""Open games: the index the sweeper expires them from, and the cap per client.

Two sorted sets (documented in ``events.redis_adapter.keys``), written by the application on the
lobby path only (create, the join that starts a game, expiry) -- never on a command:

- ``<p>games:open``: member = id of a game created with a free seat, score = Unix
  time of its creation. The sweeper expires members older than
  ``TABLETOP_OPEN_GAME_TTL_S`` that are still open (``workers.sweeper``).
- ``<p>opengames:{<client>}``: the open games one client created (same member and
  score), with a TTL of the open-game TTL plus a day, renewed by each creation: a
  client's set vanishes once all its games are long gone.

Both are indexes, not the truth: the table is (a game's status is a fold of its
events). A game that started or expired is removed from them when that happens; a
removal lost to a crash is repaired lazily -- the sweeper drops members that are no
longer open, the cap counts only members still in ``games:open``.

The cap (:meth:`OpenGames.admit`) counts, then the creation adds: two creations of
one client racing may both pass at ``cap - 1`` (one over, at most one per request in
flight) -- a bound on spam, not an accounting system, so no lock on the create path.
"""

from __future__ import annotations

from typing import Any

from events.redis_adapter.keys import OPEN_GAMES, client_open_games, prefixed

CLIENT_SET_GRACE_S = 24 * 3600
"""A client's set lives this much longer than an open game may (its TTL)."""


class OpenGames:
    """The open-games index and the per-client cap on one Redis. Thread-safe."""

    def __init__(self, client: Any, prefix: str, *, cap: int, ttl_s: int) -> None:
        """``cap``: open games one client may have (0 = no cap); ``ttl_s``: how long a
        game may stay open (the sweeper's business; sizes the client sets' TTL)."""
        self._redis = client
        self._prefix = prefix
        self.cap = cap
        self.ttl_s = ttl_s
        self._open = prefixed(prefix, OPEN_GAMES)

    def open_since(self, client_id: str) -> list[float]:
        """Creation times of ``client_id``'s games still open, oldest first (dropping from
        its set those that are not)."""
        key = client_open_games(self._prefix, client_id)
        members = self._redis.zrange(key, 0, -1, withscores=True)
        if not members:
            return []
        scores = self._redis.zmscore(self._open, [m for m, _ in members])
        gone = [m for (m, _), score in zip(members, scores, strict=True) if score is None]
        if gone:
            self._redis.zrem(key, *gone)
        return [created for (_, created), score in zip(members, scores, strict=True) if score is not None]

    def admit(self, client_id: str | None, now: float) -> float | None:
        """None if ``client_id`` (None: an operator, never capped) may open one more game;
        else the seconds until its oldest open game expires (at least 1), for Retry-After."""
        if client_id is None or self.cap <= 0:
            return None
        open_since = self.open_since(client_id)
        if len(open_since) < self.cap:
            return None
        return max(1.0, open_since[0] + self.ttl_s - now) if self.ttl_s > 0 else 3600.0

    def opened(self, game_id: str, created: float, client_id: str | None) -> None:
        """Index a game created with a free seat (one round trip)."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.zadd(self._open, {game_id: created})
        if client_id is not None:
            key = client_open_games(self._prefix, client_id)
            pipe.zadd(key, {game_id: created})
            pipe.expire(key, self.ttl_s + CLIENT_SET_GRACE_S)
        pipe.execute()

    def closed(self, game_id: str) -> None:
        """The game started or expired: out of the open index (client sets follow lazily)."""
        self._redis.zrem(self._open, game_id)

    def older_than(self, created_before: float, limit: int) -> list[str]:
        """Ids of indexed games created before ``created_before``, oldest first."""
        members = self._redis.zrangebyscore(self._open, "-inf", created_before, start=0, num=limit)
        return [m.decode() if isinstance(m, bytes) else m for m in members]
