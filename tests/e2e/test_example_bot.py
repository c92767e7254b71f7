"""``examples/http_bot.py`` as a real process against a live server and real bot
workers: it creates a game against server bots and plays it to the end, and two of
it join a given game and play it out beside a server bot."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from support.bot_worker import bot_worker
from support.live_server import LiveServer
from support.processes import ROOT

from tabletop_client import TabletopClient

BOT = os.path.join(ROOT, "examples", "http_bot.py")


@pytest.fixture(scope="module")
def bots(live_server: LiveServer) -> Iterator[None]:
    with bot_worker(live_server, think_ms=10):
        yield


def start_bot(live_server: LiveServer, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    return subprocess.Popen(
        [sys.executable, BOT, "--url", live_server.url, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def finish(process: subprocess.Popen[str]) -> dict[str, Any]:
    """The bot's final report; the process is reaped whatever happens."""
    try:
        out, err = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, err[-3000:]
    return json.loads(out.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_it_creates_a_game_against_server_bots_and_plays_it_out(
    live_server: LiveServer, bots: None
) -> None:
    report = finish(
        start_bot(
            live_server,
            "--create",
            "schlitzohr",
            "--option",
            "turn_cap=10",
            "--bots",
            "1=greedy",
            "--seed",
            "1",
        )
    )
    assert report["status"] == "finished" and report["seat"] == 0
    client = TabletopClient(live_server.url)
    view = client.view(report["game_id"])
    assert view["seats"][0]["name"] == "http-bot" and view["seats"][0]["bot"] is None
    assert view["result"] == report["result"]
    commands = [
        e for e in client.all_events(report["game_id"]) if e["actor"] == {"kind": "seat", "seat": 0}
    ]
    assert commands  # it did play, as a seat over HTTP, not as a server bot
    assert client.verification(report["game_id"])["ok"]


def test_two_of_it_join_a_given_game_and_play_it_out(live_server: LiveServer, bots: None) -> None:
    client = TabletopClient(live_server.url)
    game_id = client.create_game("abluxxen", 3, bots={2: "random"})["game_id"]
    # Both join at once: one of them may lose the race for the table (409, nothing
    # written), which the client retries.
    bots = [
        start_bot(live_server, "--game-id", game_id, "--name", f"ext-{n}", "--seed", str(n))
        for n in (1, 2)
    ]
    try:
        reports = [finish(bot) for bot in bots]
    finally:
        for bot in bots:  # a failed first one leaves the second to reap
            if bot.poll() is None:
                bot.kill()
                bot.communicate()
    assert {r["seat"] for r in reports} == {0, 1}
    assert all(r["status"] == "finished" and r["game_id"] == game_id for r in reports)
    view = client.view(game_id)
    assert {s["name"] for s in view["seats"][:2]} == {"ext-1", "ext-2"}
    assert client.verification(game_id)["ok"]
