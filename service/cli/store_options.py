"""Redis options shared by the sub-commands that read or write the event store directly
(``export``, ``verify --game``, ``import``).

``--redis-url`` defaults to ``TABLETOP_REDIS_URL``, then ``REDIS_URL``, then the Redis
that ``tabletop up`` recorded in ``<--data-dir>/service.json`` (default ``.tabletop``),
then ``redis://127.0.0.1:6379/0`` (``service.runner.datadir``); a
``redis+cluster://host:port`` URL opens a Redis Cluster client, as the server does
(``service.bootstrap.redis_client``). ``--prefix`` defaults to
``TABLETOP_KEY_PREFIX`` (then ``tt:``): the same keys the server uses.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NoReturn

import redis
from redis.exceptions import RedisClusterException

from events.archive.lazy import LazyArchive, default_archive_url
from events.redis_adapter.store import RedisEventStore
from service.runner.datadir import DEFAULT_DATA_DIR, resolve_redis_url
from service.settings import Settings


def add_redis_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--redis-url",
        help="Redis to use, redis+cluster://host:port for a cluster (default:"
        " TABLETOP_REDIS_URL, REDIS_URL, then the one tabletop up recorded in the data directory)",
    )
    add_data_dir_argument(parser)
    parser.add_argument("--prefix", help="key prefix (default: TABLETOP_KEY_PREFIX or tt:)")


def add_data_dir_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        default=os.environ.get("TABLETOP_DATA_DIR") or DEFAULT_DATA_DIR,
        help="tabletop up's data directory, whose service.json says where its Redis is and"
        " which holds the default archive (default: TABLETOP_DATA_DIR or .tabletop)",
    )


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
        resolved = resolve_redis_url(args.redis_url, getattr(args, "data_dir", None))
        url = resolved.url
        prefix = settings.key_prefix if args.prefix is None else args.prefix
    except ValueError as exc:
        fail(str(exc))
    try:
        client = redis_client(url)  # a cluster client connects (and may fail) here
        store = RedisEventStore(client, prefix=prefix, archive=LazyArchive(archive_url(args, settings)))
    except ValueError as exc:
        fail(str(exc))
    except (redis.RedisError, RedisClusterException) as exc:
        fail(f"Redis at {url} failed: {exc}")
    try:
        yield Opened(client, store)
    except (redis.RedisError, RedisClusterException) as exc:
        fail(f"Redis at {url} failed: {exc} (URL from {resolved.source})")
    finally:
        client.close()
        if store.archive is not None:
            store.archive.close()


def archive_url(args: argparse.Namespace, settings: Settings) -> str:
    """``TABLETOP_ARCHIVE_URL``, else the SQLite archive in the data directory the command
    was given (the one ``up`` passes its children as ``TABLETOP_DATA_DIR``)."""
    data_dir = getattr(args, "data_dir", None) or DEFAULT_DATA_DIR
    return settings.archive_url or default_archive_url({"TABLETOP_DATA_DIR": str(data_dir)})


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``tabletop: message`` to stderr and exit with ``code`` (2: could not run)."""
    print(f"tabletop: {message}", file=sys.stderr)
    raise SystemExit(code)
