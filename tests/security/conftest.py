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
from contextlib import AbstractContextManager
from typing import Any

import pytest
import requests
from support.http_games import HttpApi
from support.live_server import LiveServer
from support.redis import TestRedis
from support.security_servers import own_server

SERVER_SETTINGS: dict[str, Any] = {
    "sse_max_s": 3.0,
    "sse_heartbeat_s": 0.5,
    "long_poll_max_s": 1.0,
}


def _server(redis_target: TestRedis, **settings: Any) -> AbstractContextManager[LiveServer]:
    return own_server(redis_target, **{**SERVER_SETTINGS, **settings})


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
