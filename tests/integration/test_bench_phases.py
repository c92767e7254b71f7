"""``bench.phases`` under the real server: every request counted under its kind, and the
CPU it charges adds up to what the kernel accounted to the workers.

The meter is how the protocol bench says which kind of request costs what; a meter that
lost requests, mislabelled them or charged a fraction of the CPU would send the next
round of work to the wrong place.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import psutil
import requests
from support.live_server import free_port
from support.processes import service_env, start_tabletop, stop_process, unique_queue

from bench import phases

REQUESTS = 3 * phases.DUMP_EVERY
"""Bare POSTs sent after the warm-up: a multiple of the dump interval, so the last dump
of a worker that served them all comes after the last of them."""


def _serve(env: dict[str, str], port: int) -> tuple[subprocess.Popen[bytes], str]:
    process = start_tabletop(
        ["serve", "--bind", f"127.0.0.1:{port}", "--workers", "1", "--app", "bench.phases:bare"], env
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            requests.post(url + "/bare", json={"warm": True}, timeout=5)
            return process, url
        except requests.RequestException:  # not listening yet, or a slow first answer
            time.sleep(0.05)
    stop_process(process)
    raise RuntimeError("the metered server did not start")


def test_the_meter_counts_every_request_and_charges_the_workers_cpu(
    redis_target, key_prefix, redis_client, tmp_path: Path
) -> None:
    env = service_env(redis_target.url, key_prefix, unique_queue())
    env[phases.DIR_ENV] = str(tmp_path)
    process, url = _serve(env, free_port())
    try:
        worker = psutil.Process(process.pid).children()[0]
        session = requests.Session()
        # Up to the next dump: the meter's totals then start from a known point.
        while not list(tmp_path.glob("phases-*.json")):
            session.post(url + "/bare", json={"command": {"kind": "roll"}}, timeout=5)
        before = json.loads(next(tmp_path.glob("phases-*.json")).read_text())
        cpu_before = sum(worker.cpu_times()[:2])
        for _ in range(REQUESTS):
            assert session.post(url + "/bare", json={"command": {"kind": "roll"}}, timeout=5).ok
        cpu_spent = sum(worker.cpu_times()[:2]) - cpu_before
        after = json.loads(next(tmp_path.glob("phases-*.json")).read_text())
    finally:
        stop_process(process)

    assert after["requests"]["bare"] - before["requests"]["bare"] == REQUESTS
    # The meter counts integer nanoseconds; psutil answers seconds.
    charged = {label: after["cpu"][label] - before["cpu"].get(label, 0) for label in after["cpu"]}
    for phase in phases.PHASES:
        assert charged.get(f"{phase}:bare", 0) > 0, phase
    # A greenlet serving no request is charged under what it runs: gevent's loop here.
    assert charged.get("Hub.run", 0) > 0, charged
    # Each request's CPU between the two dumps is charged to some label; the kernel's
    # figure also holds the few switches after the last dump (a 10 % margin).
    charged_s = sum(charged.values()) / 1e9
    assert 0.9 * cpu_spent <= charged_s <= 1.1 * cpu_spent, (charged, cpu_spent)


def test_request_kinds_follow_the_protocol_benchs_paths() -> None:
    kind = lambda method, path: phases.request_kind({"REQUEST_METHOD": method, "PATH_INFO": path})  # noqa: E731
    assert kind("POST", "/v1/games/g1/commands") == "command"
    assert kind("GET", "/v1/games/g1/legal") == "legal"
    assert kind("GET", "/v1/games/g1/events/stream") == "stream"
    assert kind("GET", "/v1/games/g1") == "view"
    assert kind("POST", "/v1/games") == "other"
    assert kind("POST", "/v1/games/g1/seats") == "other"
    assert kind("POST", "/bare") == "bare"
