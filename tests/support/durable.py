"""A Redis server that must not lose acknowledged writes, for crash tests.

``appendonly yes`` + ``appendfsync always``: Redis fsyncs the AOF before it
answers a write, so anything acknowledged survives ``kill -9`` and a restart on
the same directory.
"""

from __future__ import annotations

from pathlib import Path

from events.redis_adapter.server import RedisServer

DURABLE_CONFIG = {"appendonly": "yes", "appendfsync": "always"}


def durable_server(directory: str | Path, port: int | None = None) -> RedisServer:
    """A started durable server keeping its files in ``directory`` (restart it on the
    same directory, and the same ``port`` if wanted, to recover)."""
    return RedisServer(directory=directory, port=port, config=DURABLE_CONFIG).start()
