"""The composition root: settings → Redis client → store → application (+ notifier).

Every entry point (the HTTP app, the RQ workers, the CLI) builds its parts here
and nowhere else, so they all share one command path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis
from redis.cluster import RedisCluster

from events.archive.lazy import LazyArchive
from events.redis_adapter.feed import shards_from_env
from events.redis_adapter.store import RedisEventStore
from service.accounts.store import AccountStore
from service.app.application import Application, Notifier
from service.app.live_games import LiveGames
from service.app.open_games import OpenGames
from service.app.rematches import Rematches
from service.runner import pid
from service.settings import Settings


@dataclass(frozen=True, slots=True)
class Services:
    """The long-lived parts of one process."""

    settings: Settings
    redis: Any
    """The event store's Redis (a ``redis.Redis`` or a ``RedisCluster``)."""
    store: RedisEventStore
    app: Application
    queue_redis: Any = None
    """The plain Redis of RQ (``TABLETOP_QUEUE_REDIS_URL``): ``redis`` itself unless that
    names another server; None only for services built with a caller's notifier on a
    cluster without a queue URL (they enqueue nothing)."""


CLUSTER_SCHEME = "redis+cluster://"


def is_cluster_url(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster (``redis+cluster://host:port``)."""
    return url.startswith(CLUSTER_SCHEME)


def queue_redis_url(settings: Settings) -> str:
    """The URL of RQ's Redis: ``TABLETOP_QUEUE_REDIS_URL``, else the store's URL.

    ValueError (a readable start-up error) when that would be a cluster: RQ runs
    MULTI/EXEC over a job's hash and its queue's list, keys of different slots, and
    reads ``connection_pool``, which a ``RedisCluster`` has not.
    """
    if settings.queue_redis_url:
        if is_cluster_url(settings.queue_redis_url):
            raise ValueError(
                "TABLETOP_QUEUE_REDIS_URL must name a plain Redis (redis://...), not a cluster:"
                " RQ cannot run on Redis Cluster"
            )
        return settings.queue_redis_url
    if is_cluster_url(settings.redis_url):
        raise ValueError(
            "the event store is a Redis Cluster (TABLETOP_REDIS_URL=redis+cluster://...) and RQ"
            " cannot run on one: set TABLETOP_QUEUE_REDIS_URL to a plain Redis for the bot queues"
        )
    return settings.redis_url


def redis_client(url: str) -> Any:
    """A client for ``url``; ``redis+cluster://`` URLs give a Redis Cluster client.

    ``decode_responses`` stays off: the store reads bytes and decodes once, which
    is measurably faster on the replay path.
    """
    if is_cluster_url(url):
        return RedisCluster.from_url("redis://" + url.removeprefix(CLUSTER_SCHEME))
    return redis.Redis.from_pool(_Pool.from_url(url, health_check_interval=30))


class _Pool(redis.ConnectionPool):
    """redis-py's pool without the deprecation wrapper redis-py 6 puts around
    ``get_connection``: it inspects the arguments of every call (none are ever passed
    here), which measured about 2 % of a command's CPU in the API bench."""

    get_connection = getattr(redis.ConnectionPool.get_connection, "__wrapped__", redis.ConnectionPool.get_connection)

    def _checkpid(self) -> None:
        # redis-py compares os.getpid() with the pool's on every call (two system calls
        # per command); the id held in memory changes exactly when the process forks.
        if self.pid != pid.current():
            super()._checkpid()


def build(settings: Settings | None = None, notifier: Notifier | None = None, client: Any = None) -> Services:
    """Everything a process needs, from ``settings`` (default: the environment).

    With the default notifier on a standalone Redis, the store publishes each append
    to the projection feed inside its append script (one round trip per command, and
    atomic); on a cluster the notifier publishes after the append. A caller-supplied
    ``notifier`` gets a store that publishes nothing itself.

    RQ gets the plain Redis of :func:`queue_redis_url` (the store's own client when
    that is the same URL); ValueError, before anything runs, when the store is a
    cluster and no queue URL is set.
    """
    settings = settings or Settings.from_env()
    if notifier is None:
        queue_redis_url(settings)  # a missing queue URL fails before any connection
    client = client if client is not None else redis_client(settings.redis_url)
    queue_client = _queue_client(settings, client, needed=notifier is None)
    feed_shards = None if notifier is not None or isinstance(client, RedisCluster) else shards_from_env()
    store = RedisEventStore(
        client,
        prefix=settings.key_prefix,
        feed_shards=feed_shards,
        idempotency_ttl_s=settings.idempotency_ttl_s,
        archive=LazyArchive(settings.archive_url or None),
    )
    if notifier is None:
        from service.app.notify import default_notifier

        notifier = default_notifier(
            settings, client, queue_client, feed_in_store=store.publishes_feed
        )
    open_games = OpenGames(
        client,
        settings.key_prefix,
        cap=settings.max_open_games_per_client,
        ttl_s=settings.open_game_ttl_s,
    )
    live_games = LiveGames(
        client,
        settings.key_prefix,
        cap=settings.max_unfinished_games_per_client,
        open_ttl_s=settings.open_game_ttl_s,
        idle_ttl_s=settings.idle_game_ttl_s,
    )
    accounts = AccountStore(client, settings.key_prefix)
    app = Application(
        store,
        notifier,
        snapshot_every=settings.snapshot_every,
        open_games=open_games,
        live_games=live_games,
        accounts=accounts,
        rematches=Rematches(client, settings.key_prefix),
    )
    return Services(settings, client, store, app, queue_client)


def _queue_client(settings: Settings, client: Any, *, needed: bool) -> Any:
    """RQ's client: the store's ``client`` unless the queue is elsewhere (see
    :func:`build`)."""
    if not settings.queue_redis_url and not isinstance(client, RedisCluster):
        return client  # one Redis for everything: one pool
    try:
        return redis_client(queue_redis_url(settings))
    except ValueError:
        if needed:
            raise
        return None
