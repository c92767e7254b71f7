"""Real ``tabletop`` processes for tests: bot workers, sweepers, ``tabletop up``.

Every process gets the test's own Redis URL, key prefix and RQ queue name through
``TABLETOP_*`` variables -- exactly how a deployment configures them -- so tests run
side by side (pytest-xdist) without taking each other's jobs.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def unique_queue() -> str:
    """An RQ queue name no other test uses."""
    return f"tt-test-bots-{uuid.uuid4().hex[:12]}"


def service_env(redis_url: str, key_prefix: str, queue: str, **settings: Any) -> dict[str, str]:
    """The environment of a tabletop process: ours plus ``TABLETOP_<NAME>`` for each setting."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_") and k != "REDIS_URL"
    }
    env.update(
        TABLETOP_REDIS_URL=redis_url, TABLETOP_KEY_PREFIX=key_prefix, TABLETOP_QUEUE_NAME=queue
    )
    env.update({f"TABLETOP_{name.upper()}": str(value) for name, value in settings.items()})
    return env


def start_tabletop(
    args: list[str], env: Mapping[str, str], **popen: Any
) -> subprocess.Popen[bytes]:
    """``tabletop <args>`` as a child of this test, in a process group of its own."""
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", *args],
        env=dict(env),
        cwd=ROOT,
        process_group=0,
        **popen,
    )


def stop_process(
    process: subprocess.Popen[Any], sig: int = signal.SIGTERM, timeout: float = 15.0
) -> int:
    """Signal the whole group of ``process``, wait, and SIGKILL the group after ``timeout``."""
    for signum in (sig, signal.SIGKILL):
        try:
            os.killpg(process.pid, signum)
        except ProcessLookupError:
            pass
        try:
            return process.wait(timeout)
        except subprocess.TimeoutExpired:
            continue
    return process.wait()


@contextmanager
def running(
    args: list[str], env: Mapping[str, str], **popen: Any
) -> Iterator[subprocess.Popen[bytes]]:
    """A ``tabletop`` process for the duration of a ``with`` block, always stopped after."""
    process = start_tabletop(args, env, **popen)
    try:
        yield process
    finally:
        stop_process(process)


@contextmanager
def running_projector(env: Mapping[str, str]) -> Iterator[subprocess.Popen[bytes]]:
    """The projector (``python -m workers.projector``) for a ``with`` block, always
    stopped after: the lobby's lists, totals and ratings follow the games meanwhile."""
    process = subprocess.Popen(
        [sys.executable, "-m", "workers.projector"], env=env, cwd=ROOT, process_group=0, stderr=subprocess.DEVNULL
    )
    try:
        yield process
    finally:
        stop_process(process)


def wait_until(probe: Callable[[], T], timeout: float, what: str, interval: float = 0.05) -> T:
    """The first truthy value of ``probe()`` within ``timeout`` seconds; AssertionError if none."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def delete_rq_keys(client: Any, queue: str) -> int:
    """Delete RQ's keys of ``queue`` and of its strong-bot queue ``<queue>-strong``: the
    queues, their registries and their jobs (by origin). Never FLUSHDB: other tests and
    deployments may share the server."""
    strong = f"{queue}-strong"
    return _delete_rq_keys(client, queue) + _delete_rq_keys(client, strong)


def _delete_rq_keys(client: Any, queue: str) -> int:
    deleted = 0
    for key in list(client.scan_iter(match="rq:*", count=1000)):
        name = key.decode() if isinstance(key, bytes) else key
        if name.startswith("rq:job:"):
            origin = client.hget(name, "origin")
            mine = (
                origin is not None
                and (origin.decode() if isinstance(origin, bytes) else origin) == queue
            )
        else:
            mine = name.endswith(f":{queue}") or f":{queue}:" in name
        if mine:
            deleted += client.unlink(name)
            if name.startswith("rq:job:"):
                deleted += client.unlink("rq:results:" + name.removeprefix("rq:job:"))
    return deleted
