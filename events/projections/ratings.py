"""The ratings projection: rating finished games in one deterministic order, each once.

Two steps, both idempotent (keys in ``rating_keys``, scripts in ``rating_scripts``):

1. **Submit** (:meth:`Ratings.submit`, by the updater when a game's read model first
   shows it finished, before its lobby entry says so): the game's rated outcome
   (``rating_outcome``) is queued in ``pending`` with its sort score, unless it was
   queued or rated before -- a game enters the ratings once, however often it is
   submitted (a redelivered notification, a rebuild of one game).
2. **Rate** (:meth:`Ratings.rate_pending`): the queued games are rated in the rating
   order, (``GameEnded`` time, game id). A game can be queued *after* a later one was
   already rated -- two feed shards, two projectors, a crash, a slow append. The step
   then re-rates from there: it restores the ratings the first out-of-order game started
   from (its record keeps every player's rating before it), rates the late game, and
   rates the following games again. So the stored ratings are always the fold of the
   rated games *in the rating order*, exactly what a rebuild computes from scratch:
   a rebuild and the live projector agree byte for byte, however games arrived.

Concurrency: any number of raters (projector threads and processes, a rebuild) may run
at once. A step reads ``gen`` first, computes in Python (openskill), and writes with a
script that refuses if ``gen`` moved (every submit and every write moves it): a step
computed from stale data never lands, so no game is ever rated twice or from a wrong
start. A loser reads again; after :data:`ATTEMPTS` losses in a row it stops -- the
winners are rating meanwhile and loop until the queue is empty. A crash between the two
steps leaves the game queued: the next step of anyone rates it (the projector's
reconciliation runs one per game type).

Cost per game: submit = one script; a rating step = four reads (two of them pipelines)
and one script, shared by up to :data:`BATCH` games queued together: six round trips per
game when games end one at a time (``bench/ratings_bench.py``).
"""

from __future__ import annotations

import json
from typing import Any

from engine.registry import game_names
from events.projections import rating_math
from events.projections.rating_keys import PARTS, RatingKeys
from events.projections.rating_math import PRIOR, Rating
from events.projections.rating_outcome import RatedOutcome
from events.projections.rating_scripts import RESET, SUBMIT, WRITE
from events.redis_adapter.scripts import Script

BATCH = 100
"""Games rated per write script."""

ATTEMPTS = 5
"""Lost races in a row after which :meth:`Ratings.rate_pending` leaves the queue to the
raters that won them."""

Entry = tuple[str, int]
"""A game in the rating order: ``(game id, score)``; sorted by ``(score, game id)``."""


class Ratings:
    """Submitting and rating finished games under one key prefix. Thread-safe."""

    def __init__(self, client: Any, prefix: str) -> None:
        self.client = client
        self.prefix = prefix
        self._submit = Script(client, SUBMIT)
        self._write = Script(client, WRITE)
        self._reset = Script(client, RESET)

    def keys(self, game: str) -> RatingKeys:
        return RatingKeys(self.prefix, game)

    def submit(self, outcome: RatedOutcome) -> bool:
        """Queue ``outcome``'s game for rating; False if it was queued or rated before."""
        k = self.keys(outcome.game)
        text = json.dumps(outcome.to_json(), sort_keys=True, separators=(",", ":"))
        args = [outcome.game_id, str(outcome.ended_us), text]
        return bool(self._submit([k.gen, k.pending, k.done, k.outcome], args))

    def rate_pending(self, game: str, batch: int = BATCH) -> int:
        """Rate every game of type ``game`` queued so far, in the rating order; returns
        how many ratings this call wrote (re-ratings included). Raises
        ``redis.RedisError`` when Redis is down (nothing half-written: call again)."""
        done, losses = 0, 0
        while losses < ATTEMPTS:
            outcome = self._step(self.keys(game), batch)
            if outcome is None:
                return done
            rated, drained = outcome
            if rated == 0:
                losses += 1
            else:
                done, losses = done + rated, 0
                if drained:
                    # The step rated every game that was queued when it read ``gen``; one
                    # queued since moved ``gen`` (the write would have failed), and whoever
                    # queued it rates it: no need to look again.
                    return done
        return done

    def rate_all(self) -> int:
        """:meth:`rate_pending` for every game type."""
        return sum(self.rate_pending(game) for game in game_names())

    def reset(self) -> None:
        """Delete every rating under the prefix (before a full rebuild). History keys
        go first, then the rest in one script: a rater writing in between only adds
        history entries of games that the rebuild rates again (entries are plain
        facts, game id and time), so nothing is lost and nothing stale remains."""
        for game in game_names():
            k = self.keys(game)
            played = list(self.client.scan_iter(match=k.played_pattern, count=1000))
            for start in range(0, len(played), 500):
                self.client.delete(*played[start : start + 500])
            self._reset([k.gen, *(k.part(p) for p in PARTS)], [])

    def _step(self, k: RatingKeys, batch: int) -> tuple[int, bool] | None:
        """One rating step: None if nothing is queued, else ``(games rated, queue
        drained)`` -- ``(0, False)`` if the write lost a race."""
        pipe = self.client.pipeline(transaction=False)
        pipe.get(k.gen)
        pipe.zrange(k.pending, 0, batch - 1, withscores=True)
        gen, queued = pipe.execute()
        pending = [(_text(m), int(s)) for m, s in queued]
        if not pending:
            return None
        first = _order(pending[0])
        later = self.client.zrangebyscore(k.done, pending[0][1], "+inf", withscores=True)
        redo = [e for e in ((_text(m), int(s)) for m, s in later) if _order(e) > first]
        tail = sorted({*pending, *redo}, key=_order)[:batch]
        undone = [e for e in redo if e not in set(tail)]
        outcomes, records = self._read(k, [g for g, _ in tail], [g for g, _ in redo])
        if any(o is None for o in outcomes) or any(r is None for r in records):
            return 0, False  # a reset ran meanwhile: gen moved too, so read again
        start: dict[str, Rating] = {}
        for record in records:  # in rating order: the first "before" is the start
            for p in json.loads(record)["players"]:
                start.setdefault(p["id"], Rating.from_json(p["before"]))
        games = [json.loads(o) for o in outcomes]
        current = dict(start)
        current.update(self._stored(k, {i for g in games for i, _ in g["players"]} - start.keys()))
        touched: list[str] = []
        rated = []
        for (game_id, score), outcome in zip(tail, games, strict=True):
            players = [(ident, rank) for ident, rank in outcome["players"]]
            before = [current.get(ident, PRIOR) for ident, _ in players]
            after = rating_math.rate([(b, rank) for b, (_, rank) in zip(before, players, strict=True)])
            entries = []
            for (ident, rank), b, a in zip(players, before, after, strict=True):
                current[ident] = a
                if ident not in touched:
                    touched.append(ident)
                entries.append(
                    {"id": ident, "rank": rank, "before": b.to_json(), "after": a.to_json()}
                )
            record = {"ended": outcome["ended"], "players": entries}
            rated.append((game_id, score, _compact(record), [i for i, _ in players]))
        written = self._write_step(k, int(gen or 0), rated, undone, current, touched, start)
        drained = len(pending) < batch and set(pending) <= set(tail) and not undone
        return written, drained

    def _read(self, k: RatingKeys, tail: list[str], redo: list[str]) -> tuple[list[Any], list[Any]]:
        pipe = self.client.pipeline(transaction=False)
        pipe.hmget(k.outcome, tail)
        if redo:
            pipe.hmget(k.record, redo)
        replies = pipe.execute()
        return replies[0], replies[1] if redo else []

    def _stored(self, k: RatingKeys, idents: set[str]) -> dict[str, Rating]:
        """The stored ratings of ``idents`` (absent ones are left out: PRIOR)."""
        names = sorted(idents)
        if not names:
            return {}
        values = self.client.hmget(k.rating, names)
        return {n: Rating.from_json(json.loads(v)) for n, v in zip(names, values, strict=True) if v is not None}

    def _write_step(
        self,
        k: RatingKeys,
        gen: int,
        rated: list[tuple[str, int, str, list[str]]],
        undone: list[Entry],
        current: dict[str, Rating],
        touched: list[str],
        start: dict[str, Rating],
    ) -> int:
        """Write the step with ``scripts.WRITE``; 0 if ``gen`` moved, else games rated."""
        played = list(dict.fromkeys(i for *_, idents in rated for i in idents))
        slot = {ident: str(n + 1) for n, ident in enumerate(played)}
        restore = [i for i in start if i not in touched]
        finals = [*touched, *(i for i in restore if start[i].games > 0)]
        step = {
            "rated": [[g, str(s), text, [slot[i] for i in ids]] for g, s, text, ids in rated],
            "undone": [[g, str(s)] for g, s in undone],
            "set": [[i, current[i].text(), repr(current[i].ordinal)] for i in finals],
            "unset": [i for i in restore if start[i].games == 0],
        }
        keys = [k.gen, k.pending, k.done, k.record, k.rating, k.board]
        keys += [k.played(i) for i in played]
        payload = json.dumps(step, separators=(",", ":"), ensure_ascii=False)
        written = self._write(keys, [gen, payload])
        return len(rated) if written else 0


def _order(entry: Entry) -> tuple[int, str]:
    return entry[1], entry[0]


def _compact(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
