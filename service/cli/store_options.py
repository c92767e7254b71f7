"""Redis options shared by the sub-commands that read or write the event store directly
(``export``, ``verify --game``, ``import``).

``--redis-url`` defaults to ``TABLETOP_REDIS_URL``, then ``REDIS_URL``, then the Redis
that ``tabletop up`` recorded in ``<--data-dir>/service.json`` (default ``.tabletop``),
then ``redis://127.0.0.1:6379/0`` (``service.runner.datadir``); ``--prefix`` to
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

from events.redis_store import RedisEventStore
from service.runner.datadir import DEFAULT_DATA_DIR, resolve_redis_url
from service.settings import Settings


def add_redis_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--redis-url",
        help="Redis to use (default: TABLETOP_REDIS_URL, REDIS_URL, then the one"
        " tabletop up recorded in the data directory)",
    )
    add_data_dir_argument(parser)
    parser.add_argument("--prefix", help="key prefix (default: TABLETOP_KEY_PREFIX or tt:)")


def add_data_dir_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        default=DEFAULT_DATA_DIR,
        help="tabletop up's data directory, whose service.json says where its Redis is",
    )


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
        resolved = resolve_redis_url(args.redis_url, getattr(args, "data_dir", None))
        url = resolved.url
        prefix = settings.key_prefix if args.prefix is None else args.prefix
        client = redis.Redis.from_url(url)
        store = RedisEventStore(client, prefix=prefix)
    except ValueError as exc:
        fail(str(exc))
    try:
        yield Opened(client, store)
    except redis.RedisError as exc:
        fail(f"Redis at {url} failed: {exc} (URL from {resolved.source})")
    finally:
        client.close()


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``tabletop: message`` to stderr and exit with ``code`` (2: could not run)."""
    print(f"tabletop: {message}", file=sys.stderr)
    raise SystemExit(code)
