"""Real ``tabletop worker`` processes for the bot benches, and the events' times.

The bot benches measure what the deployment's workers do, so they start the real CLI
entry point (``python -m service.cli worker``) with only the settings a bench chooses
in its environment (``TABLETOP_*`` of the caller's shell are dropped), each in a
process group of its own so that stopping it stops its work horse too.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import time
from datetime import datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

from service.settings import Settings

ROOT = Path(__file__).resolve().parent.parent


def start_workers(settings: Settings, count: int, **extra: str) -> list[subprocess.Popen[bytes]]:
    """``count`` workers on ``settings``' Redis, prefix and queue, plus ``extra``
    (``TABLETOP_<NAME>`` per keyword)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update(
        TABLETOP_REDIS_URL=settings.redis_url,
        TABLETOP_KEY_PREFIX=settings.key_prefix,
        TABLETOP_QUEUE_NAME=settings.queue_name,
    )
    env.update({f"TABLETOP_{name.upper()}": value for name, value in extra.items()})
    command = [sys.executable, "-m", "service.cli", "worker", "--log-level", "WARNING"]
    return [subprocess.Popen(command, env=env, cwd=ROOT, process_group=0) for _ in range(count)]


def stamp(text: str) -> float:
    """An event's ``time`` as seconds since the epoch."""
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def turn_latencies(events: list[dict[str, Any]]) -> list[float]:
    """Seconds from each append to the bot append that followed it: one gap per bot turn
    (the events of one append share its time stamp, so only the first of each counts)."""
    return [
        stamp(e["time"]) - stamp(before["time"])
        for before, e in pairwise(events)
        if e["actor"]["kind"] == "bot" and e["time"] != before["time"]
    ]


def stop_workers(procs: list[subprocess.Popen[bytes]]) -> None:
    """Stop workers :func:`start_workers` started (SIGTERM to each group), and wait."""
    for proc in procs:
        os.killpg(proc.pid, signal.SIGTERM)
    for proc in procs:
        proc.wait(60)


def latency_summary(latencies: list[float]) -> dict[str, float]:
    """Count, p50, p95 and max (ms) of turn latencies given in seconds."""
    ordered = sorted(latencies)
    return {
        "turns": len(ordered),
        "p50_ms": 1000 * statistics.median(ordered),
        "p95_ms": 1000 * ordered[max(0, int(0.95 * len(ordered)) - 1)],
        "max_ms": 1000 * ordered[-1],
    }


def wait_for_workers(settings: Settings, client: Any, count: int) -> None:
    """Until ``count`` workers listen on ``settings``' cheap queue: their start-up is not
    in a bench's figures."""
    from rq import Queue, Worker

    from service.app.notify import bot_queue_names

    cheap = Queue(bot_queue_names(settings)[0], connection=client)
    while Worker.count(queue=cheap) < count:
        time.sleep(0.05)


def wait_finished(svc: Any, game_id: str, what: str, timeout_s: float = 600) -> None:
    """Until ``game_id`` has finished; RuntimeError naming ``what`` after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while svc.app.queries.view(game_id, None)["status"] != "finished":
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not finish in {timeout_s:.0f} s")
        time.sleep(0.05)
