"""The projector: keeps the read models up to date from the feed, and survives restarts.

    python -m workers.projector [--redis-url URL] [--prefix P] [--consumer NAME] ...

One process joins the consumer group ``events.redis_adapter.feed.GROUP`` on every feed shard.
Per batch of notifications it updates each named game once (``Updater.update``
reads the game's own stream from its checkpoint, so a batch that names a game
five times costs one update) and then XACKs the batch's entries of that game.

Restarts and crashes: an entry is acknowledged only after its game's update
(checkpoint included) was written, so a crash leaves it pending. On start, and
every :data:`CLAIM_EVERY_S`, each shard's loop first takes over the entries other
consumers left pending longer than ``claim_idle_ms`` (XAUTOCLAIM), then
re-processes its own pending entries -- a restart under the same consumer name
resumes exactly where it died. Reprocessing is harmless: the checkpoint makes each
event apply at most once. Reconciliation (on start and every
``reconcile_every_s``) covers notifications that were never written or were
trimmed (``events.redis_adapter.feed``). Redis errors are logged and retried with a pause, so
the process rides out a Redis restart.

Ratings (``events.projections.ratings``): a game that finishes is submitted to the
ratings at once, and the queue is rated whenever every shard has caught up with the
feed (and at each reconciliation): a backlog is rated once, in the rating order.

Threads: one per shard, each blocking on its own shard (a blocking read of several
shards would be CROSSSLOT on a cluster), plus the reconciliation in the caller's
thread. Scale out with more processes under different consumer names.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import redis

from events.accounts import reservations
from events.archive.lazy import LazyArchive
from events.projections.model import UnprojectableGame
from events.projections.reconcile import known_games, lagging_games
from events.projections.redis_models import ReadModels
from events.projections.totals_backfill import backfill_account_totals
from events.projections.update import Updater
from events.redis_adapter.feed import FeedConsumer, Notification, shards_from_env
from events.redis_adapter.reader import RedisEventReader

log = logging.getLogger("tabletop.projector")

BATCH = 200
"""Feed entries read per XREADGROUP call."""

BLOCK_MS = 1000
"""How long a shard's read waits for news; also how soon a stop request is noticed."""

CLAIM_IDLE_MS = 30_000
"""Entries pending this long at another consumer are taken over: longer than any
update takes, so a live consumer's work is rarely duplicated (duplicates are harmless)."""

CLAIM_EVERY_S = 10.0
"""How often each shard's loop looks for entries to take over."""

RECONCILE_EVERY_S = 30.0
"""How often every game head is compared with its read model (``reconcile``)."""

PRUNE_IDLE_MS = 3_600_000
"""Consumers idle this long with nothing pending are removed from the group."""

RETRY_PAUSE_S = 1.0
"""Pause after a Redis error before trying again."""

Hook = Callable[[str], None]


class Projector:
    """One projector process's work; :meth:`run` loops, :meth:`catch_up_once` drains."""

    def __init__(
        self,
        client: Any,
        prefix: str,
        *,
        shards: int | None = None,
        consumer: str | None = None,
        claim_idle_ms: int = CLAIM_IDLE_MS,
        reconcile_every_s: float = RECONCILE_EVERY_S,
        block_ms: int = BLOCK_MS,
        after_update: Hook | None = None,
    ) -> None:
        """``after_update(game_id)`` runs between a game's update and the XACK of its
        entries (tests use it to crash exactly there)."""
        # Archived games too, for the one-time totals backfill (the live path needs none).
        self._history = RedisEventReader(client, prefix=prefix, archive=LazyArchive())
        self.updater = Updater(
            RedisEventReader(client, prefix=prefix),
            ReadModels(client, prefix),
            rate_on_finish=False,  # rated once every shard has caught up (see _shard_loop)
        )
        self.feed = FeedConsumer(
            client,
            prefix,
            shards=shards_from_env() if shards is None else shards,
            consumer=consumer or f"{socket.gethostname()}-{os.getpid()}",
        )
        self.claim_idle_ms = claim_idle_ms
        self.reconcile_every_s = reconcile_every_s
        self.block_ms = block_ms
        self.after_update = after_update
        self.applied = 0  # events applied by this process (for tests and logs)
        self._lock = threading.Lock()
        self._caught_up = [False] * len(self.feed.keys)
        self.feed.ensure_groups()

    def catch_up_once(self) -> int:
        """Drain every shard without waiting: claimed, own pending, then new entries.
        Returns how many notifications were handled."""
        handled = 0
        for shard in range(len(self.feed.keys)):
            handled += self._recover(shard)
            while notes := self.feed.read(shard, BATCH):
                handled += self._handle(notes)
        self._rate()
        return handled

    def reconcile(self) -> int:
        """Update every game whose read models lag behind its stream, then rate the games
        left queued for rating (by a crash between submitting and rating); returns how
        many games lagged."""
        client, keys = self.updater.models.client, self.updater.models.keys
        behind = lagging_games(client, keys, known_games(client, keys))
        for game_id in behind:
            self._update(game_id)
        self._rate()
        return len(behind)

    def run(self, stop: threading.Event) -> None:
        """Project until ``stop`` is set: one thread per shard, reconciliation here."""
        threads = [
            threading.Thread(target=self._shard_loop, args=(shard, stop), daemon=True)
            for shard in range(len(self.feed.keys))
        ]
        for thread in threads:
            thread.start()
        while not stop.is_set():
            _guarded(self._housekeeping, stop)
            stop.wait(self.reconcile_every_s)
        for thread in threads:
            thread.join()

    def _housekeeping(self) -> None:
        backfill_account_totals(self.updater, self._history)  # once per store: at once after
        reservations.backfill(self.updater.models.client, self.updater.models.keys.prefix)  # once per store too
        self.reconcile()
        self.feed.prune(PRUNE_IDLE_MS)

    def _shard_loop(self, shard: int, stop: threading.Event) -> None:
        next_claim = 0.0
        while not stop.is_set():
            if time.monotonic() >= next_claim:
                _guarded(lambda: self._recover(shard), stop)
                next_claim = time.monotonic() + CLAIM_EVERY_S
            _guarded(lambda: self._read_and_handle(shard), stop)

    def _read_and_handle(self, shard: int) -> None:
        """Handle one read of ``shard``; once every shard has read less than a full batch
        (caught up), rate the games that finished meanwhile. Ratings wait for that
        because a backlog -- after an outage -- comes shard by shard, not in the order
        the games ended: rated as it came, every earlier game arriving later would make
        the ratings re-rate what followed it (correct, see ``ratings``, but quadratic)."""
        notes = self.feed.read(shard, BATCH, self.block_ms)
        self._handle(notes)
        self._caught_up[shard] = len(notes) < BATCH
        if all(self._caught_up) and self.updater.ratings_due.is_set():
            self._rate()

    def _rate(self) -> None:
        """Rate every queued game (``ratings_due`` is cleared first: a game finishing
        meanwhile sets it again). On an error it stays due for the next try."""
        self.updater.ratings_due.clear()
        try:
            self.updater.ratings.rate_all()
        except Exception:
            self.updater.ratings_due.set()
            raise

    def _recover(self, shard: int) -> int:
        """Take over idle entries of others, then handle this consumer's pending ones."""
        self.feed.claim(shard, self.claim_idle_ms)
        handled, after = 0, "0"
        while notes := self.feed.pending(shard, BATCH, after):
            handled += self._handle(notes)
            after = notes[-1].entry_id
        return handled

    def _handle(self, notes: Sequence[Notification]) -> int:
        """Update each game named in ``notes`` once, acknowledging its entries after."""
        by_game: dict[str | None, list[Notification]] = {}
        for note in notes:
            by_game.setdefault(note.game_id, []).append(note)
        for game_id, entries in by_game.items():
            if game_id is not None and not self._update(game_id):
                continue  # a failure to retry later: leave the entries pending
            if game_id is not None and self.after_update is not None:
                self.after_update(game_id)
            self.feed.ack(entries)
        return len(notes)

    def _update(self, game_id: str) -> bool:
        """Update one game; False if it failed in a way worth retrying later."""
        try:
            applied = self.updater.update(game_id).applied
        except (UnprojectableGame, ValueError) as exc:
            log.error("skipping a notification: %s", exc)  # retrying cannot help
            return True
        except redis.RedisError:
            raise  # Redis is down: the caller pauses; the entries stay pending anyway
        except Exception:
            log.exception("updating game %s failed; its notification stays pending", game_id)
            return False
        with self._lock:
            self.applied += applied
        return True


def _guarded(step: Callable[[], object], stop: threading.Event) -> None:
    """Run ``step``; on an error log it and pause, so a loop outlives Redis outages
    (and bugs: a dead shard thread would silently stop projecting its shard)."""
    try:
        step()
    except redis.RedisError as exc:
        log.warning("redis error, retrying in %.1fs: %s", RETRY_PAUSE_S, exc)
        stop.wait(RETRY_PAUSE_S)
    except Exception:
        log.exception("projector step failed, retrying in %.1fs", RETRY_PAUSE_S)
        stop.wait(RETRY_PAUSE_S)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m workers.projector", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--redis-url", help="default: TABLETOP_REDIS_URL / REDIS_URL")
    parser.add_argument("--prefix", help="key prefix (default: TABLETOP_KEY_PREFIX)")
    parser.add_argument("--shards", type=int, help="feed shards (default: TABLETOP_FEED_SHARDS)")
    parser.add_argument("--consumer", help="consumer name (default: <host>-<pid>)")
    parser.add_argument("--claim-idle-ms", type=int, default=CLAIM_IDLE_MS)
    parser.add_argument("--reconcile-every", type=float, default=RECONCILE_EVERY_S, metavar="S")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Run a projector until SIGINT/SIGTERM."""
    import signal

    from service.bootstrap import redis_client
    from service.runner import liveness
    from service.settings import Settings

    args = parse_args(argv)
    settings = Settings.from_env()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    client = redis_client(args.redis_url or settings.redis_url)
    projector = Projector(
        client,
        settings.key_prefix if args.prefix is None else args.prefix,
        shards=args.shards,
        consumer=args.consumer,
        claim_idle_ms=args.claim_idle_ms,
        reconcile_every_s=args.reconcile_every,
    )
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    liveness.start_beating()  # under `up`: its watchdog restarts a projector that stops running
    log.info("projector %s started", projector.feed.consumer)
    projector.run(stop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
