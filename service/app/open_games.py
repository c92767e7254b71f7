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

The cap (:meth:`OpenGames.admit`) is checked and taken in one step: a script adds a
*reservation* (member ``r:<game id>``) to the client's set only if the set holds fewer
than ``cap`` members, so of creations racing at ``cap - 1`` exactly one passes (before,
each counted first and added after, and all of them passed). :meth:`opened` turns the
reservation into the game's member; a creation that failed gives it back
(:meth:`released`), and one whose process died leaves it to lapse after
:data:`RESERVATION_GRACE_S`. One key per script, so it runs on a Redis Cluster too.
"""

from __future__ import annotations

import time
from typing import Any

from events.redis_adapter.keys import OPEN_GAMES, client_open_games, prefixed
from events.redis_adapter.scripts import Script

CLIENT_SET_GRACE_S = 24 * 3600
"""A client's set lives this much longer than an open game may (its TTL)."""

RESERVATION = "r:"
"""Prefix of a reservation's member in a client's set (game ids are base62: no colon)."""

RESERVATION_GRACE_S = 60.0
"""A reservation older than this belongs to a creation that died: it no longer counts.
A creation is one append and a few round trips; a minute is far beyond any of them."""

RESERVE_SCRIPT = """
-- Take one of a client's places (open games; unfinished ones, service.app.live_games) if one is free, in one step.
-- KEYS[1] = the client's set; ARGV[1] = cap, ARGV[2] = now, ARGV[3] = the reservation's
-- member, ARGV[4] = the set's TTL. Returns 1 if reserved, 0 if the client is at the cap.
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""


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
        self._reserve = Script(client, RESERVE_SCRIPT)

    def open_since(self, client_id: str, now: float | None = None) -> list[float]:
        """Creation times of ``client_id``'s games still open, oldest first, dropping from
        its set the games that are not and the reservations that lapsed."""
        key = client_open_games(self._prefix, client_id)
        members = [(_text(m), score) for m, score in self._redis.zrange(key, 0, -1, withscores=True)]
        games = [(m, created) for m, created in members if not m.startswith(RESERVATION)]
        lapsed_before = (time.time() if now is None else now) - RESERVATION_GRACE_S
        gone = [m for m, made in members if m.startswith(RESERVATION) and made < lapsed_before]
        scores = self._redis.zmscore(self._open, [m for m, _ in games]) if games else []
        gone += [m for (m, _), score in zip(games, scores, strict=True) if score is None]
        if gone:
            self._redis.zrem(key, *gone)
        return [created for (_, created), score in zip(games, scores, strict=True) if score is not None]

    def admit(self, client_id: str | None, now: float, game_id: str) -> float | None:
        """None if ``client_id`` (None: an operator, never capped) may open one more game,
        which then holds a place reserved for ``game_id``; else the seconds until its
        oldest open game expires (at least 1), for Retry-After."""
        if client_id is None or self.cap <= 0:
            return None
        open_since = self.open_since(client_id, now)  # frees the places of closed games
        key = client_open_games(self._prefix, client_id)
        ttl = self.ttl_s + CLIENT_SET_GRACE_S
        if self._reserve(keys=[key], args=[self.cap, now, RESERVATION + game_id, ttl]) == 1:
            return None
        if open_since and self.ttl_s > 0:
            return max(1.0, open_since[0] + self.ttl_s - now)
        return 1.0 if self.ttl_s > 0 else 3600.0  # the places are reservations in flight

    def opened(self, game_id: str, created: float, client_id: str | None) -> None:
        """Index a game created with a free seat, in the place :meth:`admit` reserved
        (one round trip)."""
        pipe = self._redis.pipeline(transaction=False)
        pipe.zadd(self._open, {game_id: created})
        if client_id is not None:
            key = client_open_games(self._prefix, client_id)
            pipe.zadd(key, {game_id: created})
            pipe.zrem(key, RESERVATION + game_id)
            pipe.expire(key, self.ttl_s + CLIENT_SET_GRACE_S)
        pipe.execute()

    def released(self, game_id: str, client_id: str | None) -> None:
        """Give back the place :meth:`admit` reserved for a game that was not created."""
        if client_id is not None:
            self._redis.zrem(client_open_games(self._prefix, client_id), RESERVATION + game_id)

    def closed(self, game_id: str) -> None:
        """The game started or expired: out of the open index (client sets follow lazily)."""
        self._redis.zrem(self._open, game_id)

    def older_than(self, created_before: float, limit: int) -> list[str]:
        """Ids of indexed games created before ``created_before``, oldest first."""
        members = self._redis.zrangebyscore(self._open, "-inf", created_before, start=0, num=limit)
        return [m.decode() if isinstance(m, bytes) else m for m in members]


def _text(member: bytes | str) -> str:
    return member.decode() if isinstance(member, bytes) else member
