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

The cap (:meth:`OpenGames.admit`) is checked and taken in one step by
``service.app.client_places`` (a reservation added by a script only below the cap), so
of creations racing at ``cap - 1`` exactly one passes.
"""

from __future__ import annotations

from typing import Any

from events.redis_adapter.keys import OPEN_GAMES, client_open_games, prefixed
from service.app.client_places import RESERVATION_GRACE_S, ClientPlaces, member_text

__all__ = ["RESERVATION_GRACE_S", "OpenGames"]

CLIENT_SET_GRACE_S = 24 * 3600
"""A client's set lives this much longer than an open game may (its TTL)."""


class OpenGames:
    """The open-games index and the per-client cap on one Redis. Thread-safe."""

    def __init__(self, client: Any, prefix: str, *, cap: int, ttl_s: int) -> None:
        """``cap``: open games one client may have (0 = no cap); ``ttl_s``: how long a
        game may stay open (the sweeper's business; sizes the client sets' TTL)."""
        self._redis = client
        self.cap = cap
        self.ttl_s = ttl_s
        self._open = prefixed(prefix, OPEN_GAMES)
        self._places = ClientPlaces(
            client, lambda c: client_open_games(prefix, c), self._still_open, cap=cap, set_ttl_s=ttl_s + CLIENT_SET_GRACE_S
        )

    def _still_open(self, game_ids: list[str]) -> set[str]:
        scores = self._redis.zmscore(self._open, game_ids)
        return {g for g, score in zip(game_ids, scores, strict=True) if score is not None}

    def open_since(self, client_id: str, now: float | None = None) -> list[float]:
        """Creation times of ``client_id``'s games still open, oldest first, dropping from
        its set the games that are not and the reservations that lapsed."""
        return self._places.since(client_id, now)

    def admit(self, client_id: str | None, now: float, game_id: str) -> float | None:
        """None if ``client_id`` (None: an operator, never capped) may open one more game,
        which then holds a place reserved for ``game_id``; else the seconds until its
        oldest open game expires (at least 1), for Retry-After."""
        if client_id is None or self.cap <= 0:
            return None
        open_since = self.open_since(client_id, now)  # frees the places of closed games
        if self._places.reserve(client_id, now, game_id):
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
            self._places.take(pipe, client_id, game_id, created)
        pipe.execute()

    def released(self, game_id: str, client_id: str | None) -> None:
        """Give back the place :meth:`admit` reserved for a game that was not created."""
        if client_id is not None:
            self._places.release(client_id, game_id)

    def closed(self, game_id: str) -> None:
        """The game started or expired: out of the open index (client sets follow lazily)."""
        self._redis.zrem(self._open, game_id)

    def older_than(self, created_before: float, limit: int) -> list[str]:
        """Ids of indexed games created before ``created_before``, oldest first."""
        members = self._redis.zrangebyscore(self._open, "-inf", created_before, start=0, num=limit)
        return [member_text(m) for m in members]
