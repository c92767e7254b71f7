"""A live server of its own for a security test module (``tests/security``).

Like the conftest's ``start_server``, but meant for module-scoped fixtures: a test
module that plays whole games (hundreds of requests from one address) uses a server
with the settings it needs -- the rate limit off, short TTLs -- so it neither trips
over nor eats up the shared server's limits.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from support.live_server import LiveServer
from support.redis import TestRedis, delete_prefix, unique_prefix

ADMIN_TOKEN = "security-admin-token-0123456789abcdef"


@contextmanager
def own_server(redis_target: TestRedis, **settings: Any) -> Iterator[LiveServer]:
    """A live server with ``settings`` (``TABLETOP_*`` names in lower case), its keys
    deleted and its log checked for tracebacks afterwards."""
    prefix = unique_prefix()
    defaults = {"admin_token": ADMIN_TOKEN, "rate_limit_per_minute": 0}
    server = LiveServer(redis_target.url, prefix, **{**defaults, **settings}).start()
    try:
        yield server
    finally:
        log = server.log_text()
        server.stop()
        client = redis_target.client()
        delete_prefix(client, prefix)
        delete_prefix(client, f"rq:queue:{server.queue}")
        client.close()
        assert "Traceback" not in log, log[-3000:]
