"""Fixtures shared by every test folder: the Redis server, per-test key prefixes.

Redis fixtures are lazy: the session's throwaway ``redis-server`` starts only when
a test first asks for one, so unit test runs never start it. See
``tests/support/redis.py`` for ``TABLETOP_TEST_REDIS_URL`` / ``TABLETOP_TEST_KEY_PREFIX``.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

# ``support`` is imported as a top-level package whether or not tests/ has an
# __init__.py (pytest's rootdir-relative import modes differ on that).
if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

from support.processes import delete_rq_keys, unique_queue
from support.redis import TestRedis, delete_prefix, unique_prefix


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "store: event-store contract tests; .ci/run runs them again against the machine's Redis",
    )


@pytest.fixture(scope="session")
def redis_target() -> Iterator[TestRedis]:
    """The session's Redis (throwaway server, or ``TABLETOP_TEST_REDIS_URL``)."""
    target = TestRedis()
    yield target
    target.close()


@pytest.fixture
def key_prefix() -> str:
    """A key prefix of this test's own."""
    return unique_prefix()


@pytest.fixture
def redis_client(redis_target: TestRedis, key_prefix: str) -> Iterator[redis.Redis]:
    """A client of the session's Redis; every key under ``key_prefix`` is deleted afterwards."""
    client = redis_target.client()
    yield client
    delete_prefix(client, key_prefix)
    client.close()


@pytest.fixture
def queue_name(redis_client: redis.Redis) -> Iterator[str]:
    """A bot queue name of this test's own; its RQ keys (both queues, registries, jobs)
    are deleted afterwards."""
    name = unique_queue()
    yield name
    delete_rq_keys(redis_client, name)
