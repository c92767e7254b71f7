"""Turn clocks on the real thing: a live API server, a real ``tabletop sweeper`` process
and a real ``tabletop worker`` (RQ), on the session's Redis.

A seat that never moves is timed out by the sweeper, the clock's policy finishes the
game, and the game verifies -- over HTTP (``/verification``) and with ``tabletop
verify``; deadlines are in every view; a sweeper killed (SIGKILL) between recording a
timeout and deciding it is finished by the next sweeper, exactly once. Clocks are 1 s;
outcomes are awaited with generous bounds (nothing here asserts a speed).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from functools import partial
from typing import Any

import pytest
import requests
from support.clocks import forge_decision
from support.contract import ContractSession
from support.http_games import HttpApi, all_events
from support.live_server import LiveServer
from support.processes import ROOT, running, service_env, start_tabletop, stop_process, wait_until
from support.redis import TestRedis, delete_prefix, unique_prefix

from events.redis_adapter.keys import CLOCKS_DUE
from service.bootstrap import build
from service.settings import Settings

ADMIN = "clock-e2e-admin-token-0123456789abcdef"
SETTINGS = {
    "admin_token": ADMIN,
    "rate_limit_per_minute": 0,
    "create_limit_per_minute": 0,
    "verify_limit_per_minute": 0,
    "replay_limit_per_minute": 0,
    "sweep_interval_s": 0.2,
    "bot_think_ms": 0,
}
GAME_TIMEOUT_S = 240.0
SHORT = {"schlitzohr": {"turn_cap": 10}, "abluxxen": {}}


class Deployment:
    def __init__(self, target: TestRedis) -> None:
        self.prefix = unique_prefix()
        self.server = LiveServer(target.url, self.prefix, **SETTINGS).start()
        self.env = service_env(target.url, self.prefix, self.server.queue, **SETTINGS)
        self.redis = target.client()


@pytest.fixture(scope="module")
def deployment(redis_target: TestRedis) -> Iterator[Deployment]:
    d = Deployment(redis_target)
    worker = start_tabletop(["worker"], d.env, stderr=subprocess.DEVNULL)
    yield d
    stop_process(worker)
    log = d.server.log_text()
    d.server.stop()
    delete_prefix(d.redis, d.prefix)
    delete_prefix(d.redis, f"rq:queue:{d.server.queue}")
    d.redis.close()
    assert "Traceback" not in log, log[-3000:]


@pytest.fixture
def api(deployment: Deployment) -> Iterator[HttpApi]:
    with ContractSession() as session:
        yield HttpApi(session, deployment.server.url)


def create(api: HttpApi, game: str, policy: str, bots: dict[str, str] | None = None) -> str:
    body = {
        "game": game,
        "players": 2,
        "options": SHORT[game],
        "bots": bots or {},
        "clock": {"per_decision_s": 1, "policy": policy},
    }
    reply = api.call("POST", "/v1/games", body=body)
    assert reply.status == 201, reply.body
    game_id = reply.body["game_id"]
    for seat in range(2):
        if str(seat) not in (bots or {}):
            joined = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": f"idle{seat}"})
            assert joined.status == 201, joined.body
    return str(game_id)


def view(api: HttpApi, game_id: str) -> dict[str, Any]:
    return api.call("GET", f"/v1/games/{game_id}").body  # type: ignore[no-any-return]


def finished(api: HttpApi, game_id: str) -> bool:
    return view(api, game_id)["status"] == "finished" and view(api, game_id)["seed"] is not None


def cli_verify(d: Deployment, game_id: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "verify", "--game", game_id, "--json"],
        env=d.env, cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert done.stdout, f"verify printed no report (exit {done.returncode}): {done.stderr[-3000:]}"
    report = json.loads(done.stdout)
    assert (done.returncode == 0) == report["ok"], done.stderr
    return report  # type: ignore[no-any-return]


def test_a_bad_clock_is_a_422_with_a_stable_code(api: HttpApi) -> None:
    for bad in ({"per_decision_s": 0, "policy": "forfeit"}, {"per_decision_s": 5, "policy": "bot:strong"}, [1]):
        reply = api.call("POST", "/v1/games", body={"game": "abluxxen", "players": 2, "clock": bad})
        assert reply.status == 422 and reply.body["code"] == "invalid_clock", reply.body


def test_idle_seats_are_timed_out_by_the_sweeper_and_every_game_verifies(
    deployment: Deployment, api: HttpApi
) -> None:
    games = {
        ("schlitzohr", "forfeit"): create(api, "schlitzohr", "forfeit"),
        ("abluxxen", "forfeit"): create(api, "abluxxen", "forfeit"),
        # A person who never moves against a real bot on the RQ worker: the bot plays its
        # own turns, the clock's greedy bot plays the idle person's.
        ("schlitzohr", "bot:greedy"): create(api, "schlitzohr", "bot:greedy", {"1": "random"}),
        ("abluxxen", "bot:random"): create(api, "abluxxen", "bot:random", {"1": "greedy"}),
    }
    first = view(api, games[("abluxxen", "forfeit")])
    assert first["clock"]["policy"] == "forfeit" and first["clock"]["per_decision_s"] == 1
    (seat, deadline), = first["deadlines"].items()
    assert seat in first["to_act"] and deadline["at"].endswith("Z") and deadline["at_ms"] > 0
    with running(["sweeper"], deployment.env, stderr=subprocess.DEVNULL):
        for (game, policy), game_id in games.items():
            wait_until(partial(finished, api, game_id), GAME_TIMEOUT_S, f"{game}/{policy} {game_id} to finish")
    for (game, policy), game_id in games.items():
        final = view(api, game_id)
        events = all_events(api, game_id)
        timeouts = [e for e in events if e["type"] == "TurnTimedOut"]
        assert timeouts and all(e["actor"] == {"kind": "system"} and e["data"]["policy"] == policy for e in timeouts)
        decided = [e for e in events if e["actor"]["kind"] == "timeout"]
        assert decided, f"{game}/{policy}: no decision by the clock's policy"
        if policy == "forfeit":
            assert final["result"]["reason"] == "forfeit" and len(timeouts) == 1
            assert timeouts[0]["data"]["seat"] not in final["result"]["winners"]
        else:
            assert all(e["data"]["seat"] == 0 for e in timeouts)  # only the person has a clock
            assert any(e["actor"]["kind"] == "bot" for e in events)  # the RQ bot played too
        report = api.call("GET", f"/v1/games/{game_id}/verification").body
        assert report["ok"], report
        assert cli_verify(deployment, game_id)["ok"]
        assert deployment.redis.zscore(deployment.prefix + CLOCKS_DUE, game_id) is None


def test_a_sweeper_killed_mid_timeout_is_finished_once_by_the_next(deployment: Deployment, api: HttpApi) -> None:
    game_id = create(api, "abluxxen", "bot:greedy", {"1": "random"})
    # This sweeper records the timeout, then parks before deciding it (fault injection):
    # it is killed right there, with SIGKILL -- no cleanup of any kind runs.
    parked = start_tabletop(
        ["sweeper"], {**deployment.env, "TABLETOP_SWEEPER_STEP_DELAY_S": "600"}, stderr=subprocess.DEVNULL
    )
    try:
        wait_until(lambda: view(api, game_id)["clock"]["timed_out"] is not None, GAME_TIMEOUT_S, "a recorded timeout")
    finally:
        stop_process(parked, signal.SIGKILL)
    stuck = view(api, game_id)
    owed = stuck["clock"]["timed_out"]
    assert stuck["deadlines"] == {} and str(owed) in stuck["to_act"]
    with running(["sweeper"], deployment.env, stderr=subprocess.DEVNULL):
        wait_until(lambda: view(api, game_id)["version"] > stuck["version"], GAME_TIMEOUT_S, "the owed decision")
    events = all_events(api, game_id)
    at = stuck["version"]
    assert [e["type"] for e in events[:at]].count("TurnTimedOut") == [e["type"] for e in events].count("TurnTimedOut")
    decision = [e for e in events if e["version"] > at and e["actor"]["kind"] == "timeout"]
    assert decision and decision[0]["version"] == at + 1
    # Exactly once: one decision batch for this timeout (all its events share one time).
    assert len({e["time"] for e in decision}) == 1


def test_a_tampered_bot_decision_fails_tabletop_verify(deployment: Deployment, api: HttpApi, tmp_path: Any) -> None:
    # A dishonest server: once the idle seat's deadline has passed, it records the
    # timeout and appends another legal command than the clock's bot chooses, with the
    # events the rules make of it (well-formed, well-sealed); the sweeper then plays on.
    game_id = create(api, "abluxxen", "bot:random", {"1": "greedy"})
    wait_until(
        lambda: (d := view(api, game_id)["deadlines"].get("0")) and time.time() * 1000 > d["at_ms"],
        GAME_TIMEOUT_S,
        "the idle seat's deadline to pass",
    )
    svc = build(Settings(redis_url=deployment.env["TABLETOP_REDIS_URL"], key_prefix=deployment.prefix,
                         queue_name=deployment.server.queue))
    try:
        forged_at = forge_decision(svc.app, game_id)
    finally:
        svc.redis.close()
    with running(["sweeper"], deployment.env, stderr=subprocess.DEVNULL):
        wait_until(partial(finished, api, game_id), GAME_TIMEOUT_S, f"{game_id} to finish")
    report = cli_verify(deployment, game_id)
    assert not report["ok"] and report["discrepancy"]["version"] == forged_at, report
    assert report["discrepancy"]["kind"] == "rules"
    assert api.call("GET", f"/v1/games/{game_id}/verification").body["ok"] is False
    # The complete export, verified offline, fails the same way.
    export = requests.get(f"{deployment.server.url}/v1/games/{game_id}/export", timeout=30)
    path = tmp_path / "forged.jsonl"
    path.write_text(export.text)
    assert _verify_file(deployment, path) == 1


def _verify_file(d: Deployment, path: Any) -> int:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "verify", str(path)], env=d.env, cwd=ROOT,
        capture_output=True, timeout=120,
    ).returncode


