"""The player stream on a whole running service (``tabletop up``: API, bot worker,
projector, sweeper, embedded Redis), over real HTTP.

A registered player plays 20 games at once against bots, moving only when its
stream says so; it drops the connection every few notices and resumes with
``Last-Event-ID``. Checked: every notice id arrives exactly once and in order across
reconnects; every game reaches its end; each command the player sent answered a
notice (so no turn went unannounced, or its game would have stalled); each notice
says exactly what the spectator's view at its version shows (nothing hidden).
"""

from __future__ import annotations

import random
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import psutil
import pytest
import requests
from support.processes import service_env, start_tabletop, stop_process
from support.sse import SseEvent, events
from support.up import URL_LINE, Output

from events.redis_adapter.server import free_port

UP_TIMEOUT_S = 60.0
GAMES = 20
NOTICE_FIELDS = {"kind", "game_id", "game", "seat", "version", "status", "to_move", "kinds", "deadline", "result"}
GIVE_UP_S = 600.0
"""A failure guard, not a speed check: a stalled game would otherwise hang the test."""


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("up")
    env = service_env(
        "",
        "tt-ps:",
        "tt-ps-bots",
        rate_limit_per_minute=0,
        create_limit_per_minute=0,
        replay_limit_per_minute=0,
        max_open_games_per_client=0,
        max_unfinished_games_per_client=0,
        sse_max_s=4,
        sse_heartbeat_s=1,
        # One address plays 20 bot games at once: what a client's share of the bot workers
        # holds back (tests/integration/test_bot_share.py), not what this test is about.
        bot_share=0,
    )
    del env["TABLETOP_REDIS_URL"]
    args = ["up", "--port", str(free_port()), "--redis-port", str(free_port()), "--data-dir", str(data_dir),
            "--workers", "1", "--bot-workers", "1"]
    process = start_tabletop(args, env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    output = Output(process.stdout)
    try:
        yield output.wait_for(URL_LINE, UP_TIMEOUT_S).group(1)
    finally:
        if process.poll() is None:
            for child in psutil.Process(process.pid).children(recursive=True):
                child.kill()
            stop_process(process, 9)
        output.close()


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_a_player_of_twenty_games_hears_every_turn_resumes_and_sees_nothing_hidden(service: str) -> None:
    http = requests.Session()
    key = http.post(f"{service}/v1/players", json={"name": "multi"}, timeout=10).json()["player_key"]
    games = []
    for i in range(GAMES):
        game, players = ("schlitzohr", 2) if i % 2 else ("abluxxen", 3)
        bots = {str(s): "random" for s in range(1, players)}
        created = http.post(f"{service}/v1/games", json={"game": game, "players": players, "bots": bots}, timeout=10)
        assert created.status_code == 201, created.text
        games.append(created.json()["game_id"])
        joined = http.post(f"{service}/v1/games/{games[-1]}/seats", json={}, headers=_auth(key), timeout=10)
        assert joined.status_code == 201 and joined.json()["seat"] == 0, joined.text
    pick = random.Random(15)
    received: list[SseEvent] = []
    answered: dict[str, set[int]] = {g: set() for g in games}
    ended: set[str] = set()
    last_id = 0
    connections = 0
    give_up = time.monotonic() + GIVE_UP_S
    while len(ended) < GAMES:
        assert time.monotonic() < give_up, f"games still running: {set(games) - ended}"
        headers = {**_auth(key), "Last-Event-ID": str(last_id)} if last_id else _auth(key)
        connections += 1
        with http.get(f"{service}/v1/players/me/stream", headers=headers, stream=True, timeout=30) as response:
            assert response.status_code == 200, response.text
            for count, event in enumerate(events(response.iter_content(chunk_size=None))):
                assert event.id == last_id + 1, (event.id, last_id)  # in order, none lost, none twice
                last_id = event.id
                received.append(event)
                notice = event.data
                assert set(notice) == NOTICE_FIELDS and notice["kind"] == event.type
                if notice["status"] in ("finished", "expired"):
                    ended.add(notice["game_id"])
                elif notice["to_move"]:
                    _answer(http, service, key, notice, pick)
                    answered[notice["game_id"]].add(notice["version"])
                if count == 6:
                    break  # drop the connection: the next one resumes after last_id
    assert connections > 3
    assert ended == set(games)
    for game_id in games:
        _check_history(http, service, game_id, answered[game_id])
    for event in received[:: max(1, len(received) // 60)]:
        _check_nothing_hidden(http, service, key, event.data)


def _answer(http: requests.Session, url: str, key: str, notice: dict[str, Any], pick: random.Random) -> None:
    """Send a random legal command at the notice's version (a newer state may have been
    noticed already: then the game moved on and the answer is a 409, harmlessly)."""
    legal = http.get(f"{url}/v1/games/{notice['game_id']}/legal", headers=_auth(key), timeout=10).json()
    if legal["version"] != notice["version"] or not legal["commands"]:
        return
    command = pick.choice(legal["commands"])
    body = {"command": command, "expected_version": notice["version"]}
    reply = http.post(f"{url}/v1/games/{notice['game_id']}/commands", json=body, headers=_auth(key), timeout=10)
    assert reply.status_code in (200, 409), reply.text


def _check_history(http: requests.Session, url: str, game_id: str, answered: set[int]) -> None:
    """Every command of seat 0 was sent at a version a notice named."""
    events_: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        page = http.get(f"{url}/v1/games/{game_id}/events?after={after}&limit=500", timeout=10).json()
        events_ += page["events"]
        after = page["next_after"]
    acted_at = set()
    previous_actor: dict[str, Any] | None = None
    for event in events_:
        if event["actor"] == {"kind": "seat", "seat": 0} and event["actor"] != previous_actor and event["command"]:
            acted_at.add(event["version"] - 1)
        previous_actor = event["actor"]
    assert acted_at and acted_at <= answered, (game_id, sorted(acted_at - answered))


def _check_nothing_hidden(http: requests.Session, url: str, key: str, notice: dict[str, Any]) -> None:
    """A notice says what the *spectator's* view at its version says, and no more."""
    at = http.get(f"{url}/v1/games/{notice['game_id']}?at={notice['version']}", timeout=10)
    assert at.status_code == 200, at.text
    spectator = at.json()
    assert notice["status"] == spectator["status"]
    assert notice["game"] == spectator["game"]
    assert notice["kinds"] == spectator["to_act"].get(str(notice["seat"]), [])
    assert notice["to_move"] == bool(notice["kinds"])
    assert notice["result"] == spectator["result"]
    assert spectator["seats"][notice["seat"]]["name"] == "multi"
