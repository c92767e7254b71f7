"""Store fixtures: a store per test on the session's Redis, and a session cluster."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from support.cluster import LocalCluster, start_cluster
from support.counter import counter_store
from support.redis import delete_prefix, unique_prefix

from events.redis_adapter.store import RedisEventStore


@pytest.fixture
def store(redis_client: redis.Redis, key_prefix: str) -> RedisEventStore:
    """A store on the session's Redis, under this test's key prefix, with a step clock."""
    return counter_store(redis_client, key_prefix)


@pytest.fixture(scope="session")
def local_cluster() -> Iterator[LocalCluster]:
    """A 3-master cluster on local ports, started once per session (always our own
    processes, even when ``TABLETOP_TEST_REDIS_URL`` names an external server)."""
    cluster = start_cluster()
    yield cluster
    cluster.close()


@pytest.fixture
def cluster_store(local_cluster: LocalCluster) -> Iterator[RedisEventStore]:
    """A store on the local cluster under a fresh prefix."""
    client = local_cluster.client()
    prefix = unique_prefix()
    yield counter_store(client, prefix)
    delete_prefix(client, prefix)
    client.close()
