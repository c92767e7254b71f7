"""Moving games that are over -- finished, or expired -- out of Redis into the archive
(``events.archive``).

:func:`archive_game` moves one game, in four checked steps, each leaving it readable:

1. **read and verify from Redis**: a finished game's head must show it ended and its
   last event must be ``SeedRevealed``; an expired game's last event must be
   ``GameExpired``, with no ``GameEnded`` in its head. The whole chain is verified
   against the head, seal-2 events against their digests under the stored seed
   (``events.chain.verify.verify``). A finished game's kept verification report
   (``service.app.verification``; computed now if none was kept) must say ``ok``; an
   expired game has none, and its seed -- never revealed -- is not archived: it leaves
   with the game's Redis keys, so its hidden facts stay hidden for good (the archive's
   readers redact an expired game as Redis's did). A game failing any of it is
   refused: nothing is written, nothing deleted.
2. **write** the game to the archive in one transaction and commit.
3. **read it back** from the archive and compare it field by field, every event text
   byte for byte, with what step 1 read.
4. **delete** the game's own Redis keys (stream, head, idempotency records, seed,
   snapshot, kept report, projected view) in one Lua script on its hash-tagged keys,
   which first checks the head is still the one verified.

Until step 4 the game is in Redis (and readers use it); from step 2's commit on it is
also in the archive, which readers use once Redis has no head for it
(``events.redis_adapter.reader``): there is no moment when it is in neither. A crash at any
point leaves it readable, and running the move again completes it (step 2 finds it
archived already and step 3 compares, so a re-run is idempotent).

What stays in Redis: the game's lobby summary (``<p>game:{<id>}:summary``), its entries in
the lobby's sorted sets and its players' totals -- small, and what listings and totals
read; ``tabletop projections rebuild`` rebuilds them from the archive too.

Why expired games too: they would otherwise stay in Redis for ever (about 21 KB for a
5-player Abluxxen game; the per-client caps bound how fast one address makes them,
not how many pile up over the years).

Failure modes: :class:`NotArchivable` for a game that is not over, not complete,
or fails verification (the reason says which; the game stays in Redis untouched);
:class:`ArchiveMismatch` if the read-back differs (Redis untouched); Redis and
database errors propagate (the game stays where it was).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from engine.table import FINAL_TYPES, GAME_EXPIRED, SEED_REVEALED
from events.archive.store import ArchivedGame, ArchiveStore, texts_equal
from events.chain.verify import verify
from events.model.errors import ChainBroken
from events.projections.keys import ReadModelKeys
from events.projections.reconcile import known_games
from events.redis_adapter.keys import GameKeys
from events.redis_adapter.scripts import Script
from service.app.documents import encode
from service.app.verification import stored_report

log = logging.getLogger(__name__)

DELETE_GAME = """
-- KEYS: events, head, idem, seed, snapshot, verification, view (one game's hash tag)
-- ARGV: the head version and hash the archived copy holds
-- Deletes the game's keys only if its head is still that one: 1 deleted, 0 refused.
local head = redis.call('HMGET', KEYS[2], 'v', 'h')
if head[1] ~= ARGV[1] or head[2] ~= ARGV[2] then
  return 0
end
redis.call('DEL', unpack(KEYS))
return 1
"""

STEPS = ("verified", "committed", "checked")
"""Points between the steps where :func:`archive_game` calls its ``between`` hook
(tests simulate a crash there)."""


class NotArchivable(Exception):
    """The game cannot be archived (not finished, incomplete, or it fails verification)."""


class ArchiveMismatch(Exception):
    """The archived copy differs from the game in Redis; Redis keeps the game."""


@dataclass(frozen=True, slots=True)
class Archived:
    """Outcome of one move: ``written`` False when the archive already held the game."""

    game_id: str
    version: int
    written: bool


def read_from_redis(client: Any, prefix: str, game_id: str) -> ArchivedGame:
    """Step 1: the game as Redis holds it, verified (see the module docstring)."""
    keys = GameKeys.of(prefix, game_id)
    pipe = client.pipeline(transaction=False)
    pipe.hmget(keys.head, "v", "h", "e")
    pipe.xrange(keys.events, "-", "+")
    pipe.get(keys.seed)
    pipe.hgetall(ReadModelKeys(prefix).summary(game_id))
    (version, hash_, ended), entries, seed, summary = pipe.execute()
    if version is None:
        raise NotArchivable(f"game {game_id} is not in Redis")
    texts = [_str(fields.get(b"e", fields.get("e"))) for _, fields in entries]
    head = (int(version), _str(hash_))
    last = json.loads(texts[-1]).get("type") if texts else None
    expired = ended is None and last == GAME_EXPIRED
    if not expired and (ended is None or last != SEED_REVEALED):
        raise NotArchivable(f"game {game_id} is not over: its history ends neither with its seed revealed nor expired")
    if head[0] != len(texts):
        raise NotArchivable(f"game {game_id}'s head says version {head[0]}, its history holds {len(texts)}")
    if seed is None:
        raise NotArchivable(f"game {game_id} has no stored seed")
    dicts = [(int(_str(entry_id).split("-")[0]), json.loads(t)) for (entry_id, _), t in zip(entries, texts, strict=True)]
    try:
        verify(game_id, dicts, head, _str(seed))
    except ChainBroken as exc:
        raise NotArchivable(f"game {game_id} fails verification: {exc}") from exc
    report = None if expired else _ok_report(client, prefix, game_id, texts)
    first = json.loads(texts[0])
    return ArchivedGame(
        game_id=game_id,
        game_type=str(first["data"]["game"]),
        version=head[0],
        head_hash=head[1],
        ended_at=None if expired else int(ended),
        seed=None if expired else _str(seed),  # an expired game's seed is never revealed
        report=report,
        summary={_str(k): _str(v) for k, v in summary.items()},
        finished_time=str(json.loads(texts[-1]).get("time", "")),
        texts=tuple(texts),
    )


def _ok_report(client: Any, prefix: str, game_id: str, texts: list[str]) -> str:
    """A finished game's kept verification report (computed now if none was kept);
    NotArchivable unless it says ``ok``."""
    report = stored_report(client, prefix, game_id)
    if report is None:
        from events.audit.verify import verify_lines

        report = encode(verify_lines(texts).to_json())
    if json.loads(report).get("ok") is not True:
        raise NotArchivable(f"game {game_id}'s verification report is not ok")
    return report


def archive_game(
    client: Any,
    archive: ArchiveStore,
    prefix: str,
    game_id: str,
    *,
    between: Callable[[str], None] = lambda step: None,
    now: float | None = None,
) -> Archived:
    """Move ``game_id`` from Redis to ``archive`` (see the module docstring)."""
    game = read_from_redis(client, prefix, game_id)
    between("verified")
    written = archive.write(game, time.time() if now is None else now)
    between("committed")
    stored = archive.read(game_id)
    if stored is None or not _same(stored, game):
        raise ArchiveMismatch(f"the archived copy of game {game_id} differs from Redis; Redis keeps it")
    between("checked")
    keys = GameKeys.of(prefix, game_id)
    view = ReadModelKeys(prefix).view(game_id)
    all_keys = [keys.events, keys.head, keys.idempotency, keys.seed, keys.snapshot, keys.verification, view]
    if not Script(client, DELETE_GAME)(all_keys, [game.version, game.head_hash]):
        raise ArchiveMismatch(f"game {game_id}'s head moved while it was archived; Redis keeps it")
    log.info("game %s archived (%d events)", game_id, game.version)
    return Archived(game_id, game.version, written)


def _same(a: ArchivedGame, b: ArchivedGame) -> bool:
    """Equal in everything the read paths use. The summary is the lobby's copy at the
    first move: a re-run compares the history, head, seed and report only."""
    return (
        (a.game_id, a.game_type, a.version, a.head_hash, a.ended_at, a.seed, a.report)
        == (b.game_id, b.game_type, b.version, b.head_hash, b.ended_at, b.seed, b.report)
        and texts_equal(a.texts, b.texts)
    )


def games_to_archive(client: Any, prefix: str, older_than_s: float, now: float | None = None) -> Iterator[str]:
    """Ids of the games in Redis that are over -- ended with their seed revealed, or
    expired -- by an event more than ``older_than_s`` seconds old (the last one), in id
    order. One SCAN of the head keys, then pipelined round trips per 500 games: which
    ended (``e`` in the head), which the lobby lists as expired (its summary: the status
    only moves forward, so a stale one just waits for the next pass), and the last
    event of those, which decides."""
    now = time.time() if now is None else now
    keys = ReadModelKeys(prefix)
    ids = known_games(client, keys)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        pipe = client.pipeline(transaction=False)
        for game_id in chunk:
            pipe.hexists(keys.head(game_id), "e")
            pipe.hget(keys.summary(game_id), "status")
        found = pipe.execute()
        over = [g for i, g in enumerate(chunk) if found[2 * i] or _str(found[2 * i + 1] or "") == "expired"]
        pipe = client.pipeline(transaction=False)
        for game_id in over:
            pipe.xrevrange(GameKeys.of(prefix, game_id).events, "+", "-", count=1)
        for game_id, last in zip(over, pipe.execute(), strict=True):
            if not last:
                continue
            event = json.loads(_str(last[0][1].get(b"e", last[0][1].get("e"))))
            if event.get("type") in FINAL_TYPES and _age(event.get("time"), now) >= older_than_s:
                yield game_id


def _age(stamp: Any, now: float) -> float:
    from datetime import datetime

    try:
        return now - datetime.fromisoformat(str(stamp).replace("Z", "+00:00")).timestamp()
    except ValueError:
        return 0.0  # an unreadable time: never old enough (the move would verify it anyway)


def archive_over(
    client: Any,
    archive: ArchiveStore | Callable[[], ArchiveStore],
    prefix: str,
    older_than_s: float,
    *,
    limit: int | None = None,
    between: Callable[[str], None] = lambda step: None,
    now: float | None = None,
) -> tuple[list[str], list[str]]:
    """Archive up to ``limit`` games over (finished or expired) more than ``older_than_s``
    ago; returns
    (archived ids, refused ids). A refused game is logged and stays in Redis.
    ``archive`` may be a function opening it: called only if some game is due."""
    moved: list[str] = []
    refused: list[str] = []
    store: ArchiveStore | None = archive if isinstance(archive, ArchiveStore) else None
    for game_id in games_to_archive(client, prefix, older_than_s, now):
        if limit is not None and len(moved) + len(refused) >= limit:
            break
        if store is None:
            store = archive()  # type: ignore[operator]
        try:
            archive_game(client, store, prefix, game_id, between=between)
            moved.append(game_id)
        except (NotArchivable, ArchiveMismatch) as exc:
            log.error("game %s not archived: %s", game_id, exc)
            refused.append(game_id)
    return moved, refused


def _str(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
