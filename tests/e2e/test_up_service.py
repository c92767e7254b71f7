"""``tabletop up`` as a person runs it: a real process tree, HTTP on a free port, Ctrl-C.

It starts the embedded Redis, the API, a bot worker, the projector and the sweeper;
an all-bot game created over HTTP plays to its end by itself; SIGINT stops every
process ``up`` started and ``up`` exits 0.
"""

from __future__ import annotations

import re
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
import requests
from support.processes import service_env, start_tabletop, stop_process, wait_until
from support.up import URL_LINE, Output

from events.redis_adapter.server import free_port

UP_TIMEOUT_S = 60.0

PLAY_LINE = re.compile(r"tabletop: play in your browser: open (http://\S+)")
"""The line naming the URL to open in a browser (the web client)."""


@pytest.fixture
def up(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Output]]:
    env = service_env("", "tt-e2e:", "tt-e2e-bots")
    del env["TABLETOP_REDIS_URL"]  # no Redis given: up starts the embedded one
    args = [
        "up",
        "--port",
        str(free_port()),
        "--redis-port",
        str(free_port()),
        "--data-dir",
        str(tmp_path),
        "--workers",
        "1",
        "--bot-workers",
        "1",
    ]
    process = start_tabletop(args, env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    output = Output(process.stdout)
    try:
        yield process, output
    finally:
        if process.poll() is None:
            for child in psutil.Process(process.pid).children(recursive=True):
                child.kill()
            stop_process(process, signal.SIGKILL)
        output.close()


def test_up_serves_plays_bot_games_and_stops_everything_on_ctrl_c(
    up: tuple[subprocess.Popen[str], Output], tmp_path: Path
) -> None:
    process, output = up
    url = output.wait_for(URL_LINE, UP_TIMEOUT_S).group(1)
    assert requests.get(f"{url}/healthz", timeout=5).status_code == 200
    # The URL to open in a browser: the web client's page.
    client_url = output.wait_for(PLAY_LINE, UP_TIMEOUT_S).group(1)
    assert client_url == f"{url}/"
    page = requests.get(client_url, timeout=5)
    assert page.status_code == 200 and 'src="/web/main.js"' in page.text
    token_file = tmp_path / "admin-token"
    assert any(f"admin token in {token_file}" in line for line in output.seen)
    assert token_file.read_text().strip() and (token_file.stat().st_mode & 0o777) == 0o600
    created = requests.post(
        f"{url}/v1/games",
        json={
            "game": "schlitzohr",
            "players": 2,
            "bots": {"0": "random", "1": "greedy"},
            "options": {"turn_cap": 10},
        },
        timeout=5,
    )
    assert created.status_code == 201, created.text
    game_url = f"{url}/v1/games/{created.json()['game_id']}"
    final = wait_until(lambda: _finished(game_url), UP_TIMEOUT_S, "the all-bot game to finish")
    assert final["result"]["winners"] and final["seed"]

    family = psutil.Process(process.pid).children(recursive=True)
    names = " ".join(" ".join(p.cmdline()) for p in family)
    for part in ("redis-server", "serve", "worker", "sweeper", "workers.projector"):
        assert part in names
    process.send_signal(
        signal.SIGINT
    )  # what Ctrl-C sends (only to up: children have groups of their own)
    assert process.wait(UP_TIMEOUT_S) == 0
    left = [p for p in family if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert left == []


def _finished(game_url: str) -> dict[str, object] | None:
    view = requests.get(game_url, timeout=5).json()
    # The seed reveal is a batch of its own right after GameEnded: wait for both.
    return view if view["status"] == "finished" and view["seed"] else None
