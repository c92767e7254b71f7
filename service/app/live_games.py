"""Unfinished games: the cap on how many one client keeps, and the index of running ones.

Without these a game that starts and then never moves stays in Redis for ever: one
address could create 30 games a minute, take every seat and never play -- about
43,000 games (some 900 MB for 5-player Abluxxen) a day, until a full Redis refused
every client's writes. Two parts bound it:

- **A cap per client** (:meth:`LiveGames.admit`): the games a client created that
  have not ended -- open or running, bots' games included -- may number at most
  ``TABLETOP_MAX_UNFINISHED_GAMES_PER_CLIENT``. Its set,
  ``<p>livegames:{<client>}``, holds their ids (score: creation time); a place is
  checked and taken in one step by the mechanism the open-games cap uses too
  (``service.app.client_places``).
- **An end for idle games**: ``<p>games:running`` indexes the running games (score:
  the Unix time from which the sweeper should look at it again -- when it started,
  then its last event seen). The sweeper (``workers.sweeper.expire_idle_games``)
  takes the members due, and a game nobody has written to for
  ``TABLETOP_IDLE_GAME_TTL_S`` gets ``GameExpired`` (reason ``idle``): it is over,
  unscored, and its place in its creator's cap is free again.

Both are indexes, not the truth (a game's status is a fold of its events). Writes
happen on the lobby path (creation, the join that starts a game), at the end of a game
(the append that ends it) and in the sweeper -- never on an ordinary command, whose
path stays as it was. A removal lost to a crash is repaired lazily: a client's set
counts only members that are open (``games:open``) or running and not ended (the
head's ``e``); the sweeper drops members of ``games:running`` that no longer run.
Every command touches one key, so it runs on a Redis Cluster too.
"""

from __future__ import annotations

from typing import Any

from events.redis_adapter.keys import (
    OPEN_GAMES,
    RUNNING_GAMES,
    GameKeys,
    client_live_games,
    prefixed,
)
from service.app.client_places import ClientPlaces, member_text

CLIENT_SET_GRACE_S = 24 * 3600
"""A client's set lives this much longer than an open game and an idle one may, in
all; each creation renews it (a game longer-lived than that then goes uncounted: the
cap bounds abuse, not patience)."""


class LiveGames:
    """The per-client cap on unfinished games and the running-games index. Thread-safe."""

    def __init__(self, client: Any, prefix: str, *, cap: int, open_ttl_s: int, idle_ttl_s: int) -> None:
        """``cap``: unfinished games one client may have (0 = no cap); ``open_ttl_s`` and
        ``idle_ttl_s``: how long a game may stay open, and running with nothing written
        (0 = for ever; they size the client sets' TTL)."""
        self._redis = client
        self._prefix = prefix
        self.cap = cap
        self.idle_ttl_s = idle_ttl_s
        self._open = prefixed(prefix, OPEN_GAMES)
        self._running = prefixed(prefix, RUNNING_GAMES)
        self._places = ClientPlaces(
            client,
            lambda c: client_live_games(prefix, c),
            self._unfinished,
            cap=cap,
            set_ttl_s=open_ttl_s + idle_ttl_s + CLIENT_SET_GRACE_S,
        )

    def admit(self, client_id: str | None, now: float, game_id: str) -> float | None:
        """None if ``client_id`` (None: an operator, never capped) may create one more
        game, which then holds a place reserved for ``game_id``; else the seconds after
        which its oldest running game could at the earliest expire as idle (at least
        1; an hour when idle games never expire), for Retry-After."""
        if client_id is None or self.cap <= 0:
            return None
        started = self.unfinished_since(client_id, now)  # frees the places of ended games
        if self._places.reserve(client_id, now, game_id):
            return None
        if started and self.idle_ttl_s > 0:
            return max(1.0, started[0] + self.idle_ttl_s - now)
        return 3600.0

    def unfinished_since(self, client_id: str, now: float | None = None) -> list[float]:
        """Creation times of ``client_id``'s games still open or running, oldest first,
        dropping from its set the games that ended or expired and the reservations that
        lapsed. Three round trips; creations only (they are rate-limited)."""
        return self._places.since(client_id, now)

    def _unfinished(self, game_ids: list[str]) -> set[str]:
        """Those of ``game_ids`` indexed as open, or as running with no end in their head."""
        if not game_ids:
            return set()
        pipe = self._redis.pipeline(transaction=False)
        pipe.zmscore(self._open, game_ids)
        pipe.zmscore(self._running, game_ids)
        open_scores, running_scores = pipe.execute()
        running = [g for g, s in zip(game_ids, running_scores, strict=True) if s is not None]
        pipe = self._redis.pipeline(transaction=False)
        for game_id in running:
            pipe.hexists(GameKeys.of(self._prefix, game_id).head, "e")
        ended = {g for g, e in zip(running, pipe.execute(), strict=True) if e}
        opened = {g for g, s in zip(game_ids, open_scores, strict=True) if s is not None}
        return opened | (set(running) - ended)

    def created(self, game_id: str, created: float, client_id: str | None, *, running: bool) -> None:
        """A game was created in the place :meth:`admit` reserved; ``running``: it started
        at once (every seat a bot). One round trip."""
        pipe = self._redis.pipeline(transaction=False)
        if running:
            pipe.zadd(self._running, {game_id: created})
        if client_id is not None and self.cap > 0:
            self._places.take(pipe, client_id, game_id, created)
        pipe.execute()

    def released(self, game_id: str, client_id: str | None) -> None:
        """Give back the place :meth:`admit` reserved for a game that was not created."""
        if client_id is not None and self.cap > 0:
            self._places.release(client_id, game_id)

    def started(self, game_id: str, at: float) -> None:
        """The game's last seat was taken: it runs (call before it leaves the open
        index, so that no count finds it in neither)."""
        self._redis.zadd(self._running, {game_id: at})

    def look_again(self, game_id: str, at: float) -> None:
        """Look at ``game_id`` again from ``at`` (its last event's time) on."""
        self._redis.zadd(self._running, {game_id: at}, xx=True)

    def stopped(self, game_id: str) -> None:
        """The game ended or expired: out of the running index (client sets follow lazily)."""
        self._redis.zrem(self._running, game_id)

    def due(self, before: float, limit: int) -> list[str]:
        """Ids of running games to look at whose score is before ``before``, oldest first."""
        members = self._redis.zrangebyscore(self._running, "-inf", before, start=0, num=limit)
        return [member_text(m) for m in members]
