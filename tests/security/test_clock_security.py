"""Turn clocks against an adversary (issue 15): the server's timeout keys are out of every
client's reach, a timeout shows other viewers nothing hidden, and no clock a client
sends gets anything but a clear 4xx.

A live server of this module's own, a real ``tabletop sweeper`` (fast passes) and a real
``tabletop worker``; 1 s clocks, outcomes awaited with generous bounds.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from support.http_games import HttpApi, all_events
from support.live_server import LiveServer
from support.processes import running, service_env, wait_until
from support.redis import TestRedis
from support.security_servers import own_server

WAIT_S = 240.0
FAST = {"sweep_interval_s": 0.2, "bot_think_ms": 0}


@pytest.fixture(scope="module")
def server(redis_target: TestRedis) -> Iterator[LiveServer]:
    with own_server(redis_target, rate_limit_per_minute=0, create_limit_per_minute=0, **FAST) as live:
        yield live


@pytest.fixture(scope="module")
def processes(server: LiveServer, redis_target: TestRedis) -> Iterator[None]:
    env = {**server.env, **service_env(redis_target.url, server.env["TABLETOP_KEY_PREFIX"], server.queue, **FAST)}
    with running(["sweeper"], env, stderr=subprocess.DEVNULL), running(["worker"], env, stderr=subprocess.DEVNULL):
        yield


@pytest.fixture
def api(server: LiveServer) -> Iterator[HttpApi]:
    with requests.Session() as session:
        yield HttpApi(session, server.url)


def new_game(api: HttpApi, game: str, clock: Any, bots: dict[str, str] | None = None) -> tuple[str, dict[int, str]]:
    body = {"game": game, "players": 2, "options": {"turn_cap": 10} if game == "schlitzohr" else {},
            "bots": bots or {}, "clock": clock}
    reply = api.call("POST", "/v1/games", body=body)
    assert reply.status == 201, reply.body
    game_id = reply.body["game_id"]
    tokens = {}
    for seat in range(2):
        if str(seat) not in (bots or {}):
            joined = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": f"p{seat}"})
            tokens[seat] = joined.body["token"]
    return game_id, tokens


def view(api: HttpApi, game_id: str, token: str | None = None) -> dict[str, Any]:
    return api.call("GET", f"/v1/games/{game_id}", token=token).body  # type: ignore[no-any-return]


def test_a_player_sending_the_timeout_keys_cannot_block_or_fake_a_timeout(api: HttpApi, processes: None) -> None:
    game_id, tokens = new_game(api, "abluxxen", {"per_decision_s": 1, "reserve_s": 0, "policy": "forfeit"})
    start = view(api, game_id)
    mover = int(next(iter(start["to_act"])))
    idle = 1 - mover
    # The mover plays once, sending every spelling of the server's keys for the next
    # versions; then the other seat idles and must time out (forfeit) all the same.
    legal = api.call("GET", f"/v1/games/{game_id}/legal", token=tokens[mover]).body["commands"]
    version = start["version"]
    for key in (f"sys:timeout:{version + 1}", f"timeout:{version + 1}:{idle}", f"sys:timeout:{version + 1}:{idle}"):
        reply = api.call(
            "POST", f"/v1/games/{game_id}/commands", token=tokens[mover], body={"command": legal[0]},
            headers={"If-Match": f'"{version}"', "Idempotency-Key": key},
        )
        assert reply.status in (200, 201, 409), reply.body  # the first moves; retries answer or conflict
    wait_until(lambda: view(api, game_id)["status"] == "finished" and view(api, game_id)["seed"], WAIT_S, "the forfeit")
    final = view(api, game_id)
    assert final["result"]["reason"] == "forfeit"
    events = all_events(api, game_id)
    timed = [e for e in events if e["type"] == "TurnTimedOut"]
    assert len(timed) == 1 and timed[0]["actor"] == {"kind": "system"}
    assert api.call("GET", f"/v1/games/{game_id}/verification").body["ok"]


def test_a_timeout_shows_the_other_seat_and_spectators_nothing_hidden(api: HttpApi, processes: None) -> None:
    game_id, tokens = new_game(api, "abluxxen", {"per_decision_s": 1, "policy": "bot:greedy"})
    first = view(api, game_id)
    idle = int(next(iter(first["to_act"])))  # the first to time out
    other = 1 - idle
    wait_until(
        lambda: any(e["actor"]["kind"] == "timeout" for e in all_events(api, game_id)), WAIT_S, "a timed-out decision"
    )
    # Both seats idle: the game goes on by timeouts alone, one decision a second or so;
    # an Abluxxen deal takes dozens of them, so it is still running while we look.
    for viewer, seat in ((other, other), (None, None)):
        events = all_events(api, game_id, tokens[other] if viewer is not None else None)
        assert events[-1]["type"] != "SeedRevealed"  # running: hidden facts are hidden
        for e in events:
            if e["type"] == "TurnTimedOut":
                assert set(e["data"]) == {"seat", "policy", "deadline"} and e["private"] is None
            if e["actor"]["kind"] == "timeout" and e["actor"]["seat"] != seat:
                assert e["command"] is None, f"viewer {viewer} saw another seat's timed-out command"
            if e["private"] is not None:
                assert seat is not None and seat in e["visible_to"], f"viewer {viewer} saw a hidden part"
    own = [e for e in all_events(api, game_id, tokens[idle]) if e["actor"]["kind"] == "timeout"]
    assert own and all(e["command"] is not None for e in own)  # its own seat sees the command made for it


@pytest.mark.parametrize("clock", [
    {"per_decision_s": 10**30, "policy": "forfeit"},
    {"per_decision_s": "1", "policy": "forfeit"},
    {"per_decision_s": 1.5, "policy": "forfeit"},  # (1.0 is read as 1: service.http.body)
    {"per_decision_s": None, "policy": "forfeit"},
    {"per_decision_s": 1, "policy": {"x": 1}},
    {"per_decision_s": 1, "policy": "forfeit", "reserve_s": [1]},
    {"per_decision_s": 1, "policy": "forfeit", "seat": 0},
    {"": 1},
    [],
    "forfeit",
    1,
    True,
])
def test_every_bad_clock_is_a_clear_422_and_creates_nothing(api: HttpApi, clock: Any) -> None:
    reply = api.call("POST", "/v1/games", body={"game": "schlitzohr", "players": 2, "clock": clock})
    assert reply.status == 422 and reply.body["code"] == "invalid_clock", reply.body
    assert "field" in reply.body["details"]
