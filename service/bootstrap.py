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
from events.feed import shards_from_env
from events.recent import RecentAppends
from events.redis_store import RedisEventStore
from service.app.application import Application, Notifier
from service.app.open_games import OpenGames
from service.runner import shared
from service.settings import Settings


@dataclass(frozen=True, slots=True)
class Services:
    """The long-lived parts of one process."""

    settings: Settings
    redis: Any
    store: RedisEventStore
    app: Application


def share_recent_appends(board: RecentAppends | None) -> None:
    """Make ``board`` the one :func:`build` gives its store. Call it in a server's parent
    process before it forks the workers that share the board (gunicorn's ``on_starting``
    hook in ``service.runner.gunicorn_config`` sets ``service.runner.shared`` itself,
    without importing this module)."""
    shared.recent_appends = board


def redis_client(url: str) -> Any:
    """A client for ``url``; ``redis+cluster://`` URLs give a Redis Cluster client.

    ``decode_responses`` stays off: the store reads bytes and decodes once, which
    is measurably faster on the replay path.
    """
    if url.startswith("redis+cluster://"):
        return RedisCluster.from_url("redis://" + url.removeprefix("redis+cluster://"))
    return redis.Redis.from_pool(_Pool.from_url(url, health_check_interval=30))


class _Pool(redis.ConnectionPool):
    """redis-py's pool without the deprecation wrapper redis-py 6 puts around
    ``get_connection``: it inspects the arguments of every call (none are ever passed
    here), which measured about 2 % of a command's CPU in the API bench."""

    get_connection = getattr(redis.ConnectionPool.get_connection, "__wrapped__", redis.ConnectionPool.get_connection)


def build(settings: Settings | None = None, notifier: Notifier | None = None, client: Any = None) -> Services:
    """Everything a process needs, from ``settings`` (default: the environment).

    With the default notifier on a standalone Redis, the store publishes each append
    to the projection feed inside its append script (one round trip per command, and
    atomic); on a cluster the notifier publishes after the append. A caller-supplied
    ``notifier`` gets a store that publishes nothing itself.
    """
    settings = settings or Settings.from_env()
    client = client if client is not None else redis_client(settings.redis_url)
    feed_shards = None if notifier is not None or isinstance(client, RedisCluster) else shards_from_env()
    recent = shared.recent_appends if settings.recent_appends > 0 else None
    store = RedisEventStore(
        client,
        prefix=settings.key_prefix,
        feed_shards=feed_shards,
        recent=recent,
        idempotency_ttl_s=settings.idempotency_ttl_s,
        archive=LazyArchive(settings.archive_url or None),
    )
    if notifier is None:
        from service.app.notify import default_notifier

        notifier = default_notifier(settings, client, feed_in_store=store.publishes_feed)
    open_games = OpenGames(
        client,
        settings.key_prefix,
        cap=settings.max_open_games_per_client,
        ttl_s=settings.open_game_ttl_s,
    )
    app = Application(store, notifier, snapshot_every=settings.snapshot_every, open_games=open_games)
    return Services(settings, client, store, app)
