"""Redis options shared by the sub-commands that read or write the event store directly
(``export``, ``verify --game``, ``import``).

``--redis-url`` defaults to ``TABLETOP_REDIS_URL`` / ``REDIS_URL`` (then the local
default of :class:`service.settings.Settings`), ``--prefix`` to
``TABLETOP_KEY_PREFIX`` (then ``tt:``): the same keys the server uses.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NoReturn

import redis

from events.archive.lazy import LazyArchive
from events.redis_store import RedisEventStore
from service.settings import Settings


def add_redis_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--redis-url", help="Redis to use (default: TABLETOP_REDIS_URL or REDIS_URL)"
    )
    parser.add_argument("--prefix", help="key prefix (default: TABLETOP_KEY_PREFIX or tt:)")


@dataclass(frozen=True, slots=True)
class Opened:
    """A Redis client and the event store on it (under ``store.prefix``)."""

    client: redis.Redis
    store: RedisEventStore


@contextmanager
def open_store(args: argparse.Namespace) -> Iterator[Opened]:
    """A store on the Redis and prefix the arguments name; SystemExit(2) with a readable
    message for bad settings or an unreachable Redis, here or while it is in use."""
    try:
        settings = Settings.from_env()
        url = args.redis_url or settings.redis_url
        prefix = settings.key_prefix if args.prefix is None else args.prefix
        client = redis.Redis.from_url(url)
        store = RedisEventStore(client, prefix=prefix, archive=LazyArchive(settings.archive_url or None))
    except ValueError as exc:
        fail(str(exc))
    try:
        yield Opened(client, store)
    except redis.RedisError as exc:
        fail(f"Redis at {url} failed: {exc}")
    finally:
        client.close()
        if store.archive is not None:
            store.archive.close()


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``tabletop: message`` to stderr and exit with ``code`` (2: could not run)."""
    print(f"tabletop: {message}", file=sys.stderr)
    raise SystemExit(code)
