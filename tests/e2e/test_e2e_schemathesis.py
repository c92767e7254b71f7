"""Schemathesis -- every check, every phase (examples, coverage, fuzzing, stateful) --
against a live server (gunicorn, real Redis, a real bot worker), with zero failures in
either direction: nothing the contract allows is refused for its form, nothing it
forbids is accepted, and every answer matches it.

The run is the schemathesis CLI with ``tests/e2e/schemathesis.toml`` (seeded, bounded
for CI by max-examples/max-steps) and the hooks of ``schemathesis_hooks.py`` (seat
tokens for the stateful links, the no-refusal-for-form check). The stateful phase
follows the contract's links (create -> join -> legal -> command -> view ...).
Afterwards every response the server sent is also counted from its own metrics, and
the server's log must hold no traceback.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from support.contract import SPEC_PATH
from support.live_server import LiveServer
from support.processes import ROOT, service_env, start_tabletop, stop_process
from support.redis import TestRedis, delete_prefix, unique_prefix

HERE = Path(__file__).resolve().parent
ADMIN_TOKEN = "schemathesis-admin-token-0123456789abcdef"
SETTINGS = {
    "admin_token": ADMIN_TOKEN,
    "rate_limit_per_minute": 0,
    "create_limit_per_minute": 0,
    "verify_limit_per_minute": 0,
    "replay_limit_per_minute": 0,
    "max_open_games_per_client": 0,
    "max_unfinished_games_per_client": 0,
    "sse_max_s": 3.0,
    "sse_heartbeat_s": 0.5,
    "long_poll_max_s": 0.25,
}
"""As the e2e server (``conftest.SERVER_SETTINGS``: short streams and long polls, no rate
limits), and no cap on open games: the run creates hundreds."""


@pytest.fixture(scope="module")
def server(redis_target: TestRedis) -> Iterator[LiveServer]:
    prefix = unique_prefix()
    live = LiveServer(redis_target.url, prefix, **SETTINGS).start()
    env = service_env(redis_target.url, prefix, live.queue, **SETTINGS)
    worker = start_tabletop(["worker"], env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    yield live
    stop_process(worker)
    log = live.log_text()
    live.stop()
    client = redis_target.client()
    delete_prefix(client, prefix)
    delete_prefix(client, f"rq:queue:{live.queue}")
    client.close()
    assert "Traceback" not in log, log[-3000:]


def requests_served(server: LiveServer) -> int:
    text = requests.get(
        f"{server.url}/metrics", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=10
    ).text
    found = re.findall(r'^tabletop_http_requests_total\{[^}]*\} ([0-9.e+]+)$', text, re.M)
    return int(sum(float(n) for n in found))


def check_results(report_dir: Path) -> Counter[tuple[str, str]]:
    """(check name, status) -> how often, from the run's NDJSON report."""
    counts: Counter[tuple[str, str]] = Counter()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            checks = node.get("checks")
            if isinstance(checks, dict):
                for results in checks.values():
                    counts.update((c["name"], c["status"]) for c in results)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for report in report_dir.glob("*.ndjson"):
        for line in report.read_text().splitlines():
            event = json.loads(line)
            if "ScenarioFinished" in event:
                walk(event)
    return counts


def test_schemathesis_every_check_every_phase_finds_nothing(
    server: LiveServer, tmp_path: Path
) -> None:
    before = requests_served(server)
    env = {**os.environ, "SCHEMATHESIS_HOOKS": "schemathesis_hooks", "PYTHONPATH": str(HERE)}
    run = subprocess.run(
        [
            str(Path(sys.executable).parent / "schemathesis"),
            "--no-color",
            "--config-file",
            str(HERE / "schemathesis.toml"),
            "run",
            str(SPEC_PATH),
            "--url",
            server.url,
            "--checks",
            "all",
            "--phases",
            "examples,coverage,fuzzing,stateful",
            "--request-timeout",
            "15",
            "--report",
            "ndjson",
            "--report-dir",
            str(tmp_path),
        ],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    out = run.stdout + run.stderr
    served = requests_served(server) - before
    summary = re.search(r"(\d+) generated, (\d+) passed", out)
    links = re.search(r"API Links:\s+(\d+) covered / (\d+) selected", out)
    checks = check_results(tmp_path)
    failed = {name: n for (name, status), n in checks.items() if status != "success"}
    print(
        f"schemathesis: {summary and summary.group(0)}; {links and links.group(0)}; "
        f"requests served {served}; checks {sum(checks.values())} "
        f"({len({name for name, _ in checks})} kinds), failed {failed}"
    )
    assert run.returncode == 0, out[-6000:]
    for phase in ("Examples", "Coverage", "Fuzzing", "Stateful"):
        assert f"✅ {phase}" in out or f"✅  {phase}" in out, out[-3000:]
    assert summary is not None and summary.group(1) == summary.group(2), out[-3000:]
    assert links is not None and int(links.group(1)) > 0, "the stateful phase followed no link"
    assert sum(checks.values()) > 0 and not failed, failed
    assert ("no_shape_refusal_of_valid_data", "success") in checks  # the hooks were loaded
