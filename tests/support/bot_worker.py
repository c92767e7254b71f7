"""A real RQ bot worker (``tabletop worker``) beside a live test server, so games
with bot seats move on: the same Redis, key prefix and queue as the server."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

from support.live_server import LiveServer
from support.processes import running


@contextmanager
def bot_worker(server: LiveServer, think_ms: int = 0) -> Iterator[None]:
    """A worker for the duration of a ``with`` block; ``think_ms`` is the bots' pace."""
    env = {**server.env, "TABLETOP_BOT_THINK_MS": str(think_ms)}
    with running(["worker"], env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
        yield
