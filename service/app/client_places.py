"""A per-client cap on games, checked and taken in one step: the mechanism both caps share.

A client's set (a sorted set under the client's own hash tag: member = game id, score =
creation time) holds the games that take one of its places. A creation first drops the
members that no longer count (the cap's own test, ``live``) and the reservations that
lapsed, then runs :data:`RESERVE_SCRIPT`: it adds a *reservation* (member
``r:<game id>``) only if the set holds fewer than ``cap`` members, so of creations
racing at ``cap - 1`` exactly one passes (counting first and adding after let all of
them pass). The creation then turns its reservation into the game's member
(:meth:`ClientPlaces.take`), or gives it back (:meth:`ClientPlaces.release`); one whose
process died leaves it to lapse after :data:`RESERVATION_GRACE_S`. One key per script,
so it runs on a Redis Cluster too.

Used by ``service.app.open_games`` (open games: a member counts while the game is
open) and ``service.app.live_games`` (unfinished games: while it is open or running).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from events.redis_adapter.scripts import Script

RESERVATION = "r:"
"""Prefix of a reservation's member in a client's set (game ids are base62: no colon)."""

RESERVATION_GRACE_S = 60.0
"""A reservation older than this belongs to a creation that died: it no longer counts.
A creation is one append and a few round trips; a minute is far beyond any of them."""

RESERVE_SCRIPT = """
-- Take one of a client's places if one is free, in one step.
-- KEYS[1] = the client's set; ARGV[1] = cap, ARGV[2] = now, ARGV[3] = the reservation's
-- member, ARGV[4] = the set's TTL. Returns 1 if reserved, 0 if the client is at the cap.
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return 1
"""


class ClientPlaces:
    """The places of each client under one cap. Thread-safe."""

    def __init__(
        self,
        client: Any,
        key_of: Callable[[str], str],
        live: Callable[[list[str]], set[str]],
        *,
        cap: int,
        set_ttl_s: int,
    ) -> None:
        """``key_of``: a client's set; ``live``: which of some game ids still take a
        place; ``cap``: places per client; ``set_ttl_s``: how long a set outlives the
        latest creation."""
        self._redis = client
        self._key_of = key_of
        self._live = live
        self.cap = cap
        self.set_ttl_s = set_ttl_s
        self._reserve = Script(client, RESERVE_SCRIPT)

    def since(self, client_id: str, now: float | None = None) -> list[float]:
        """Creation times of ``client_id``'s games that still take a place, oldest first,
        dropping from its set the games that do not and the reservations that lapsed."""
        key = self._key_of(client_id)
        members = [(member_text(m), score) for m, score in self._redis.zrange(key, 0, -1, withscores=True)]
        games = [(m, made) for m, made in members if not m.startswith(RESERVATION)]
        lapsed_before = (time.time() if now is None else now) - RESERVATION_GRACE_S
        gone = [m for m, made in members if m.startswith(RESERVATION) and made < lapsed_before]
        live = self._live([m for m, _ in games]) if games else set()
        gone += [m for m, _ in games if m not in live]
        if gone:
            self._redis.zrem(key, *gone)
        return [made for m, made in games if m in live]

    def reserve(self, client_id: str, now: float, game_id: str) -> bool:
        """Reserve a place for ``game_id`` if ``client_id`` has one free (one step)."""
        key = self._key_of(client_id)
        return bool(self._reserve(keys=[key], args=[self.cap, now, RESERVATION + game_id, self.set_ttl_s]) == 1)

    def take(self, pipe: Any, client_id: str, game_id: str, created: float) -> None:
        """Add to ``pipe`` what turns ``game_id``'s reservation into its member."""
        key = self._key_of(client_id)
        pipe.zadd(key, {game_id: created})
        pipe.zrem(key, RESERVATION + game_id)
        pipe.expire(key, self.set_ttl_s)

    def release(self, client_id: str, game_id: str) -> None:
        """Give back the place reserved for a game that was not created."""
        self._redis.zrem(self._key_of(client_id), RESERVATION + game_id)


def member_text(member: bytes | str) -> str:
    """A sorted-set member as text (clients may or may not decode replies)."""
    return member.decode() if isinstance(member, bytes) else member
