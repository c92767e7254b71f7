"""Security tests: attacks from the outside against a real server (see docs/security.md).

Each test here is written from a finding's repro: it attacks a live API server
(gunicorn, real Redis, the deployment's own configuration path) the way a hostile
player, spectator or flood would, and asserts the defence holds.

Fixtures:

- ``secure_server``: one live server per test session (per xdist worker), with the
  rate limiter on at the shipped default, under a key prefix of its own.
- ``start_server(**settings)``: a context manager for a server with other
  ``TABLETOP_*`` settings (a tight rate limit, short timeouts), stopped afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import pytest
from support.http_games import HttpApi
from support.live_server import LiveServer
from support.redis import TestRedis, delete_prefix, unique_prefix

import requests

ADMIN_TOKEN = "security-admin-token-0123456789abcdef"

SERVER_SETTINGS: dict[str, Any] = {
    "admin_token": ADMIN_TOKEN,
    "sse_max_s": 3.0,
    "sse_heartbeat_s": 0.5,
    "long_poll_max_s": 1.0,
}


@contextmanager
def _server(redis_target: TestRedis, **settings: Any) -> Iterator[LiveServer]:
    prefix = unique_prefix()
    server = LiveServer(redis_target.url, prefix, **{**SERVER_SETTINGS, **settings}).start()
    try:
        yield server
    finally:
        log = server.log_text()
        server.stop()
        client = redis_target.client()
        delete_prefix(client, prefix)
        delete_prefix(client, f"rq:queue:{server.queue}")
        client.close()
        # An attack may be refused, never answered with an unhandled error.
        assert "Traceback" not in log, log[-3000:]


@pytest.fixture(scope="session")
def secure_server(redis_target: TestRedis) -> Iterator[LiveServer]:
    """A live server configured as shipped (rate limits on), shared by the session."""
    with _server(redis_target) as server:
        yield server


@pytest.fixture
def start_server(
    redis_target: TestRedis,
) -> Callable[..., AbstractContextManager[LiveServer]]:
    """``with start_server(rate_limit_per_minute=5) as server:`` -- a server of its own."""

    def start(**settings: Any) -> AbstractContextManager[LiveServer]:
        return _server(redis_target, **settings)

    return start


@pytest.fixture
def api(secure_server: LiveServer) -> Iterator[HttpApi]:
    """A plain HTTP client of ``secure_server`` (no contract checks: attacks send what
    the contract forbids)."""
    with requests.Session() as session:
        yield HttpApi(session, secure_server.url)
