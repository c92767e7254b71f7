"""E2E fixtures: one live API server per test session (per xdist worker) on the
session's Redis, under a key prefix of its own that is deleted afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.contract import ContractSession
from support.http_games import HttpApi
from support.live_server import LiveServer
from support.redis import TestRedis, delete_prefix, unique_prefix

ADMIN_TOKEN = "e2e-admin-token-0123456789abcdef"

SERVER_SETTINGS = {
    "admin_token": ADMIN_TOKEN,
    "rate_limit_per_minute": 0,
    "create_limit_per_minute": 0,
    "verify_limit_per_minute": 0,
    "replay_limit_per_minute": 0,
    "sse_max_s": 3.0,
    "sse_heartbeat_s": 0.5,
    "long_poll_max_s": 0.25,
    "max_open_games_per_client": 1000,
    "max_unfinished_games_per_client": 0,
}
"""Short stream and long-poll bounds: schemathesis may ask for the longest of both. The
open-games and unfinished-games caps (tested in tests/security) are lifted: the
generated requests create many games from one address (more since the turn clock
joined the create body), and the fixtures after them must still be able to create
theirs."""


@pytest.fixture(scope="session")
def live_server(redis_target: TestRedis) -> Iterator[LiveServer]:
    prefix = unique_prefix()
    server = LiveServer(redis_target.url, prefix, **SERVER_SETTINGS).start()
    yield server
    log = server.log_text()
    server.stop()
    client = redis_target.client()
    delete_prefix(client, prefix)
    delete_prefix(client, f"rq:queue:{server.queue}")
    client.close()
    # An unhandled error is answered with a 500 *and* logged: none may have happened.
    assert "Traceback" not in log, log[-3000:]


@pytest.fixture
def http_api(live_server: LiveServer) -> Iterator[HttpApi]:
    """A fresh client (its own connection pool) checking every answer against the contract."""
    with ContractSession() as session:
        yield HttpApi(session, live_server.url)
