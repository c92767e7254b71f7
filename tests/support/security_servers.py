"""A live server of its own for a security test module (``tests/security``).

The one way ``tests/security`` starts servers: the conftest's ``secure_server`` and
``start_server`` use it, and so do module-scoped fixtures of test modules that play
whole games (hundreds of requests from one address) and need other settings -- the
rate limit off, short TTLs -- so they neither trip over nor eat up the shared
server's limits.
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
    server = LiveServer(redis_target.url, prefix, **{"admin_token": ADMIN_TOKEN, **settings}).start()
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
