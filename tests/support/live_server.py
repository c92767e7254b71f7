"""A live API server for e2e tests: gunicorn (the shipped gevent workers, two) on a free local port.

Configured like a deployment, through ``TABLETOP_*`` variables (``support.processes``):
the session's Redis, a key prefix and an RQ queue of its own, and metrics in
multiprocess mode in a temp directory. The port is picked free just before the start;
should another process grab it first, gunicorn exits and the start is retried on a
new port.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from typing import Any

import requests

from support.processes import ROOT, service_env, stop_process, unique_queue

START_TIMEOUT_S = 20.0
ATTEMPTS = 3


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LiveServer:
    """``start()`` it, use ``url``, ``stop()`` it."""

    def __init__(self, redis_url: str, key_prefix: str, **settings: Any) -> None:
        self.queue = unique_queue()
        self.metrics_dir = tempfile.mkdtemp(prefix="tabletop-e2e-metrics-")
        self.env = service_env(redis_url, key_prefix, self.queue, **settings)
        self.env["PROMETHEUS_MULTIPROC_DIR"] = self.metrics_dir
        self.process: subprocess.Popen[bytes] | None = None
        # A file, not a pipe: nobody reads a pipe while tests run, and a full one would
        # block the server on its next log line.
        self.log = tempfile.TemporaryFile()
        self.url = ""

    def start(self) -> LiveServer:
        for _ in range(ATTEMPTS):
            port = free_port()
            self.url = f"http://127.0.0.1:{port}"
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "-c",
                    "python:service.runner.gunicorn_config",
                    "--bind",
                    f"127.0.0.1:{port}",
                    "--workers",
                    "2",
                    "--log-level",
                    "warning",
                    "service.http.wsgi:app",
                ],
                env=self.env,
                cwd=ROOT,
                process_group=0,
                stderr=self.log,
            )
            if self._wait_ready():
                return self
            stop_process(self.process)
        raise RuntimeError(f"the API server did not start: {self._stderr()}")

    def _wait_ready(self) -> bool:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process is None or self.process.poll() is not None:
                return False  # e.g. the port was taken meanwhile
            try:
                if requests.get(self.url + "/readyz", timeout=1).status_code == 200:
                    return True
            except (requests.ConnectionError, requests.Timeout):
                # Workers import the app after the fork (gevent patches first), so the
                # first request may wait in the listen queue while they boot; or
                # a loaded machine is slow to answer: ask again.
                pass
            time.sleep(0.05)
        return False

    def _stderr(self) -> str:
        return self.log_text()[-2000:]

    def log_text(self) -> str:
        """Everything the server logged so far (warnings and errors)."""
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process)
        self.log.close()
        for name in os.listdir(self.metrics_dir):
            os.unlink(os.path.join(self.metrics_dir, name))
        os.rmdir(self.metrics_dir)
