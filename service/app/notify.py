"""What happens after an append: the projection feed, the bots-waiting index, the bot queue.

:class:`RedisNotifier` is what ``service.bootstrap`` wires into every process. After
each successful append it

1. publishes ``(game, version)`` to the projection feed (``events.redis_adapter.feed.publish``) --
   unless the store already did, inside its append script (``feed_in_store``: what
   ``service.bootstrap`` sets up on a standalone Redis; on a cluster the feed lives
   in other slots, so the notifier publishes);
2. for a game with bot seats only: records in ``<p>bots:waiting`` (see
   ``events.redis_adapter.keys``) whether a bot must act now -- ZADD with the time the wait began,
   or ZREM -- pipelined with 1. A game without bots costs nothing (feed in the
   store) or one XADD; a game with bots one round trip, plus the enqueue when a bot
   must act;
3. if a bot must act, enqueues its turn on the RQ queue of its cost (below) under the
   deterministic job id :func:`bot_job_id` (``unique``: a second enqueue of the same
   turn is a no-op).

1 and 2 go to the store's Redis, which may be a cluster (each is a single key, in a
non-transactional pipeline: slot-safe); 3 goes to RQ's own plain Redis
(``TABLETOP_QUEUE_REDIS_URL``, by default the same server), since RQ's enqueue is a
transaction over keys of several slots. No key of ours is in RQ's transaction.

Queues by cost: a strong bot thinks for up to ``bot_budget_s`` per turn, a random or
greedy one for milliseconds. Their turns go to two RQ queues (:func:`bot_queue_names`):
``<queue_name>`` for the cheap levels and ``<queue_name>-strong`` for the strong one,
and every worker listens on both, cheap first (RQ takes from its queues in order). So
a cheap turn never waits behind queued strong turns, whatever their number: at most
behind the strong turns already running (each within its budget). Strong turns share
their queue first come, first served; a game has one turn queued at a time, so games
take turns with each other.

Shares by client: games take turns, but one client may create many (the creation limit
lets through 30 a minute). A game with a bot seat records its creator (:meth:`owned_by`),
and each of its turns is charged to that client's share (``service.app.bot_share``)
before it is queued: a turn beyond the share is scheduled for later instead (RQ's
scheduled registry), and the game's entry in the index below is scored from then. One
more read (the creator) in the pipeline this module sends anyway, and one script call
per turn, for games with bots only.

Ordering matters for the index: the ZADD of version ``v`` happens *before* the job of
``v`` is enqueued, so the ZREM/ZADD of ``v + 1`` (written by whoever ran that job)
always comes after it.

Failure modes: the append has already happened when the notifier runs, so a Redis
error here is logged and swallowed -- the projector's reconciliation catches the feed
up, and the sweeper (``workers/sweeper.py``) re-enqueues any bot turn that was lost.
A notifier never raises into the command path.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from rq import Queue, Retry
from rq.exceptions import DuplicateJobError

from engine.registry import get_game
from engine.table import RUNNING, Table
from events.redis_adapter import feed
from events.redis_adapter.keys import BOTS_WAITING, CLOCKS_DUE, prefixed
from service.app.bot_share import OWNER_TTL_S, BotShare, owner_key
from service.app.clock_index import next_look_ms
from service.settings import Settings

log = logging.getLogger(__name__)

BOT_JOB = "workers.bots.play_bot_turn"
"""The bot job, by import path: the service layer does not import ``workers``."""

BOT_RETRY_INTERVALS = (1, 2, 5)
"""Seconds before each retry of a failed bot job (a Redis blip, a killed job). All below
the 10 s in which a turn must resume after an outage (docs/operations.md)."""

BOT_RESULT_TTL = 120
"""Seconds a finished bot job stays in Redis; until then its id refuses re-enqueues."""

BOT_FAILURE_TTL = 24 * 3600
"""Seconds a failed bot job (retries used up) stays for inspection (``rq info``)."""


def bot_job_id(game_id: str, version: int, seat: int, attempt: str | None = None) -> str:
    """``bot-<game>-v<version>-s<seat>`` (RQ allows only ``[A-Za-z0-9_-]`` in ids).

    The sweeper adds ``-r<attempt>`` for a re-enqueue, so a job stuck "started" on a
    dead worker does not block it; all attempts share one idempotency key.
    """
    base = f"bot-{game_id}-v{version}-s{seat}"
    return base if attempt is None else f"{base}-r{attempt}"


def bot_idempotency_key(game_id: str, version: int, seat: int) -> str:
    """The key every attempt at one bot turn submits with: at most one of them writes.

    Just the version: the application stores it under the bot actor's scope
    (``bot:<seat>:<version>``, see ``service.app.retries``) in the game's own hash, a
    namespace no client key can reach (a client's key is always under ``seat:<n>:``)."""
    return str(version)


def bots_to_act(table: Table) -> list[int]:
    """The bot seats that must act now (empty unless the game is running)."""
    bots = table.bot_seats()
    if not bots or table.status != RUNNING:
        return []
    return sorted(seat for seat in get_game(table.game).to_act(table.state) if seat in bots)


EXPENSIVE_LEVELS = frozenset({"strong"})
"""Bot levels whose turns go to the strong queue (see the module docstring)."""


def bot_queue_names(settings: Settings) -> tuple[str, str]:
    """The bot queues in the order workers must listen: cheap turns, then strong ones."""
    return settings.queue_name, f"{settings.queue_name}-strong"


@dataclass(frozen=True, slots=True)
class BotQueue:
    """The RQ queues of bot turns (cheap, strong), with the job options every turn gets."""

    queue: Queue
    strong: Queue
    job_timeout_s: int

    @classmethod
    def of(cls, settings: Settings, client: Any) -> BotQueue:
        # The think delay (or the floor) is spent inside the job, so it extends the
        # job's timeout.
        pause_ms = max(settings.bot_think_ms, settings.bot_floor_ms)
        timeout = settings.bot_job_timeout_s + int(pause_ms / 1000) + 1
        cheap, strong = bot_queue_names(settings)
        return cls(Queue(cheap, connection=client), Queue(strong, connection=client), timeout)

    def queue_for(self, level: str | None) -> Queue:
        """The queue of a turn of a bot of ``level`` (None: the cheap queue)."""
        return self.strong if level in EXPENSIVE_LEVELS else self.queue

    def enqueue(
        self,
        game_id: str,
        version: int,
        seat: int,
        attempt: str | None = None,
        level: str | None = None,
        delay_s: float = 0.0,
    ) -> bool:
        """Enqueue the turn of ``seat`` (a bot of ``level``) at ``version`` on the queue of
        its cost -- or, with a ``delay_s`` (``service.app.bot_share``), schedule it to be
        queued that much later; False if that job id exists already."""
        options: dict[str, Any] = {
            "args": (game_id, version, seat),
            "job_id": bot_job_id(game_id, version, seat, attempt),
            "unique": True,
            "retry": Retry(max=len(BOT_RETRY_INTERVALS), interval=list(BOT_RETRY_INTERVALS)),
            "result_ttl": BOT_RESULT_TTL,
            "failure_ttl": BOT_FAILURE_TTL,
            "description": f"bot turn: game {game_id} version {version} seat {seat}",
        }
        queue = self.queue_for(level)
        try:
            if delay_s <= 0:
                queue.enqueue_call(BOT_JOB, timeout=self.job_timeout_s, **options)
            else:
                due = datetime.now(UTC) + timedelta(seconds=delay_s)
                queue.enqueue_at(due, BOT_JOB, job_timeout=self.job_timeout_s, **options)
        except DuplicateJobError:
            return False
        return True


class RedisNotifier:
    """The real :class:`service.app.application.Notifier` (see the module docstring)."""

    def __init__(
        self,
        client: Any,
        prefix: str,
        bots: BotQueue,
        *,
        shards: int | None = None,
        clock: Callable[[], float] = time.time,
        feed_in_store: bool = False,
        share: BotShare | None = None,
    ) -> None:
        """``feed_in_store``: the store publishes every append to the feed itself
        (``RedisEventStore(feed_shards=...)``), so this notifier does not. ``share``:
        each client's share of the bot workers (``service.app.bot_share``); None = none."""
        self._redis = client
        self._share = share if share is not None and share.on else None
        self._feed_in_store = feed_in_store
        self._prefix = prefix
        self._bots = bots
        self._shards = feed.shards_from_env() if shards is None else shards
        self._waiting = prefixed(prefix, BOTS_WAITING)
        self._clocks_due = prefixed(prefix, CLOCKS_DUE)
        self._clock = clock

    def owned_by(self, game_id: str, client: str) -> None:
        """Record that ``client`` created ``game_id``, a game with bot seats or a clock: its
        bot turns and timed-out decisions use that client's share. Raises what Redis
        raises (the creation fails, as it would on its next write)."""
        if self._share is not None:
            self._redis.set(owner_key(self._prefix, game_id), client, ex=OWNER_TTL_S)

    def after_append(self, game_id: str, table: Table) -> None:
        try:
            self._notify(game_id, table)
        except Exception:  # the append stands; see the module docstring
            log.exception("notifying after game %s version %s failed", game_id, table.version)

    def _notify(self, game_id: str, table: Table) -> None:
        if table.clock is not None:
            self._index_clock(game_id, table)
        if not table.bot_seats():  # the common case: one command (or none), no pipeline
            if not self._feed_in_store:
                feed.publish(self._redis, self._prefix, game_id, table.version, shards=self._shards)
            return
        waiting = bots_to_act(table)
        pipe = self._redis.pipeline(transaction=False)
        if not self._feed_in_store:
            # events.redis_adapter.feed.publish only calls client.xadd, so a pipeline queues it.
            feed.publish(pipe, self._prefix, game_id, table.version, shards=self._shards)
        if not waiting:
            pipe.zrem(self._waiting, game_id)
            pipe.execute()
            return
        now = self._clock()
        pipe.zadd(self._waiting, {game_id: now})
        if self._share is not None:
            pipe.get(owner_key(self._prefix, game_id))
        owner = pipe.execute()[-1] if self._share is not None else None
        levels = [table.seats[seat].bot for seat in waiting]
        delays = [self._delay_s(owner, level) for level in levels]
        if max(delays) > 0:
            # Scored from when the turns are due: the sweeper looks at a game once its
            # turn is overdue, never at the turns a client's share deferred.
            self._redis.zadd(self._waiting, {game_id: now + max(delays)})
        for seat, level, delay in zip(waiting, levels, delays, strict=True):
            self._bots.enqueue(game_id, table.version, seat, level=level, delay_s=delay)

    def _delay_s(self, owner: bytes | str | None, level: str | None) -> float:
        """How long a turn of a ``level`` bot of ``owner``'s game waits for its share."""
        if self._share is None or owner is None:
            return 0.0
        return self._share.delay_s(owner, level in EXPENSIVE_LEVELS)


    def _index_clock(self, game_id: str, table: Table) -> None:
        """A clocked game's next look in ``<p>clocks:due`` (``service.app.clock_index``).
        Games without a clock never reach here: they cost nothing."""
        score = next_look_ms(table, int(self._clock() * 1000))
        if score is None:
            self._redis.zrem(self._clocks_due, game_id)
        else:
            self._redis.zadd(self._clocks_due, {game_id: score})


def default_notifier(
    settings: Settings, client: Any, queue_client: Any = None, *, feed_in_store: bool = False
) -> RedisNotifier:
    """The notifier of a real deployment: feed (unless ``feed_in_store``) and index on
    ``client`` (the store's Redis, possibly a cluster: each is one key, slot-safe), the
    bot queues on ``queue_client`` (RQ's plain Redis; default ``client``)."""
    queues = client if queue_client is None else queue_client
    bots = BotQueue.of(settings, queues)
    share = BotShare(queues, settings.key_prefix, settings)  # beside the queues it keeps fair
    return RedisNotifier(client, settings.key_prefix, bots, feed_in_store=feed_in_store, share=share)
