"""Redis options shared by the sub-commands that read or write the event store directly
(``export``, ``verify --game``, ``import``).

``--redis-url`` defaults to ``TABLETOP_REDIS_URL`` / ``REDIS_URL`` (then the local
default of :class:`service.settings.Settings`); a ``redis+cluster://host:port`` URL
opens a Redis Cluster client, as the server does (``service.bootstrap.redis_client``).
``--prefix`` defaults to
``TABLETOP_KEY_PREFIX`` (then ``tt:``): the same keys the server uses.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NoReturn

import redis
from redis.exceptions import RedisClusterException

from events.archive.lazy import LazyArchive
from events.redis_store import RedisEventStore
from service.settings import Settings


def add_redis_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--redis-url",
        help="Redis to use, redis+cluster://host:port for a cluster"
        " (default: TABLETOP_REDIS_URL or REDIS_URL)",
    )
    parser.add_argument("--prefix", help="key prefix (default: TABLETOP_KEY_PREFIX or tt:)")


@dataclass(frozen=True, slots=True)
class Opened:
    """A Redis client and the event store on it (under ``store.prefix``)."""

    client: Any
    """A ``redis.Redis``, or a ``RedisCluster`` for a ``redis+cluster://`` URL."""
    store: RedisEventStore


@contextmanager
def open_store(args: argparse.Namespace) -> Iterator[Opened]:
    """A store on the Redis and prefix the arguments name; SystemExit(2) with a readable
    message for bad settings or an unreachable Redis, here or while it is in use."""
    from service.bootstrap import redis_client  # the server's own choice of client

    try:
        settings = Settings.from_env()
        url = args.redis_url or settings.redis_url
        prefix = settings.key_prefix if args.prefix is None else args.prefix
    except ValueError as exc:
        fail(str(exc))
    try:
        client = redis_client(url)  # a cluster client connects (and may fail) here
        store = RedisEventStore(client, prefix=prefix, archive=LazyArchive(settings.archive_url or None))
    except ValueError as exc:
        fail(str(exc))
    except (redis.RedisError, RedisClusterException) as exc:
        fail(f"Redis at {url} failed: {exc}")
    try:
        yield Opened(client, store)
    except (redis.RedisError, RedisClusterException) as exc:
        fail(f"Redis at {url} failed: {exc}")
    finally:
        client.close()
        if store.archive is not None:
            store.archive.close()


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``tabletop: message`` to stderr and exit with ``code`` (2: could not run)."""
    print(f"tabletop: {message}", file=sys.stderr)
    raise SystemExit(code)
