"""The Redis a bench writes to: the one named, or a throwaway server; cleaned up after.

    with redis_target(args.redis_url) as (client, url, prefix):
        ...  # write only under ``prefix`` (or prefixes made with ``fresh_prefix``)

Guarantees: with a URL, only keys under the prefixes handed out here are written by the
bench and all of them are deleted when the block ends (however it ends); without one, a
throwaway ``redis-server`` is started and stopped.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

import redis

from events.redis_adapter.server import RedisServer


def server_info(client: redis.Redis, section: str) -> dict[str, Any]:
    """``INFO <section>`` as redis-py parses it (its hints also allow an async reply)."""
    return cast(dict[str, Any], client.info(section))


def redis_cpu_times(client: redis.Redis) -> tuple[float, float]:
    """(user, system) CPU seconds Redis spent so far (``INFO cpu``)."""
    info = server_info(client, "cpu")
    return float(info["used_cpu_user"]), float(info["used_cpu_sys"])


def redis_cpu(client: redis.Redis) -> float:
    """CPU seconds Redis spent so far, user and system."""
    return sum(redis_cpu_times(client))


def fresh_prefix() -> str:
    """A key prefix no other run uses: ``bench:<8 hex>:``."""
    return f"bench:{uuid.uuid4().hex[:8]}:"


@contextmanager
def redis_target(
    url: str | None, binary: str | None = None, extra_prefixes: list[str] | None = None, **client_kwargs: Any
) -> Iterator[tuple[redis.Redis, str, str]]:
    """(client, its URL, a fresh prefix) until the block ends. ``binary``: the
    redis-server for the throwaway server; ``extra_prefixes``: more prefixes the bench
    made (``fresh_prefix``) whose keys go too; ``client_kwargs`` go to the client."""
    server = None if url else RedisServer(binary=binary).start()
    url = url or server.url  # type: ignore[union-attr]
    client = redis.Redis.from_url(url, **client_kwargs)
    prefix = fresh_prefix()
    try:
        yield client, url, prefix
    finally:
        for each in [prefix, *(extra_prefixes or [])]:
            for key in client.scan_iter(match=each + "*", count=1000):
                client.unlink(key)
        client.close()
        if server is not None:
            server.close()
