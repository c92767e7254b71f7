"""Running ``wrk`` with ``bench/wrk_requests.lua`` and reading what it measured.

``wrk`` comes from Debian (``apt-get install wrk``); :func:`ensure_wrk` installs it
only when asked to. Each wrk thread owns one connection (``-t N -c N``), so a thread's
prepared requests go out strictly one after the other on that connection.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LUA = Path(__file__).with_name("wrk_requests.lua")


@dataclass(frozen=True, slots=True)
class Run:
    """What one wrk run measured. ``bad`` counts non-2xx answers, socket errors and
    requests sent after a thread ran out of prepared ones: any of them voids a run."""

    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    bad: int

    @property
    def rate(self) -> float:
        return self.requests / self.seconds

    @classmethod
    def of(cls, raw: dict[str, Any]) -> Run:
        bad = raw["non_2xx"] + raw["socket_errors"] + raw["exhausted"]
        seconds = raw["duration_us"] / 1e6
        return cls(raw["requests"], seconds, raw["p50_us"] / 1e3, raw["p99_us"] / 1e3, bad)


def ensure_wrk(install: bool) -> str:
    """Path of ``wrk``; installs it from Debian if ``install``, else exits saying how to."""
    found = shutil.which("wrk")
    if found is None and install:
        subprocess.run(["apt-get", "install", "-y", "wrk"], check=True)
        found = shutil.which("wrk")
    if found is None:
        sys.exit("wrk is not installed: run `apt-get install wrk` (as root), or pass --install-wrk")
    return found


def run_wrk(wrk: str, url: str, files: Path, connections: int, seconds: int, *, cycle: bool) -> Run:
    """Load ``url`` from ``connections`` connections for ``seconds``, each replaying
    ``files/conn-<n>.tsv`` (repeating it if ``cycle``). RuntimeError if wrk fails."""
    argv = [wrk, "-t", str(connections), "-c", str(connections), "-d", f"{seconds}s"]
    argv += ["--timeout", "10s", "-s", str(LUA), url, "--", str(files)]
    if cycle:
        argv.append("cycle")
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"wrk failed ({done.returncode}): {done.stderr or done.stdout}")
    line = next(line for line in done.stdout.splitlines() if line.startswith("BENCH_JSON "))
    return Run.of(json.loads(line.removeprefix("BENCH_JSON ")))
