"""Ratings on a real server: gunicorn, an RQ bot worker and a projector process.

A series of games -- bots of different levels against each other, a guest among bots,
bots of one level only -- is played over HTTP while the projector is SIGKILLed mid-series
and restarted. Then the ratings the API serves must equal what openskill itself gives
for the same results in the same order (``support.expected_ratings``, from the public
histories read over HTTP), every game must be rated exactly once, and ``tabletop
projections rebuild`` must reproduce every stored ratings key byte for byte.
"""

from __future__ import annotations

import itertools
import random
import secrets
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import pytest
import redis
import requests
from support.contract import ContractSession
from support.expected_ratings import Played, expected, ordinal, played_from_events
from support.http_games import HttpApi, all_events, create_game, play_randomly
from support.live_server import LiveServer
from support.processes import ROOT, delete_rq_keys, start_tabletop, stop_process, wait_until
from support.readmodels import dump_read_models
from support.redis import TestRedis, delete_prefix, unique_prefix

from tabletop_client import TabletopClient

SETTINGS = {
    "rate_limit_per_minute": 0,
    "create_limit_per_minute": 0,
    "verify_limit_per_minute": 0,
    "replay_limit_per_minute": 0,
}
WAIT_S = 240.0
"""Generous bound for bot games to end and the projector to catch up (not a speed check)."""

SHORT = {"schlitzohr": {"turn_cap": 10}, "abluxxen": {"rounds": 1}}
FIRST: list[tuple[str, dict[str, str], int]] = [
    ("schlitzohr", {"0": "random", "1": "greedy"}, 2),
    ("abluxxen", {"0": "greedy", "1": "random"}, 2),
    ("schlitzohr", {"0": "greedy", "1": "random", "2": "greedy"}, 3),
    ("abluxxen", {"0": "random", "1": "random"}, 2),  # one identity: not rated
]
SECOND: list[tuple[str, dict[str, str], int]] = [
    ("schlitzohr", {"0": "strong", "1": "random"}, 2),
    ("abluxxen", {"0": "greedy", "1": "random", "2": "greedy"}, 3),
    ("schlitzohr", {"0": "random", "1": "greedy"}, 2),
    ("abluxxen", {"0": "random", "1": "greedy"}, 2),
    ("schlitzohr", {"0": "greedy", "1": "greedy"}, 2),  # one identity: not rated
]


@dataclass
class Stack:
    server: LiveServer
    worker: subprocess.Popen[bytes]
    client: redis.Redis
    prefix: str
    projector: subprocess.Popen[bytes] | None = None

    def start_projector(self, consumer: str) -> None:
        args = [sys.executable, "-m", "workers.projector", "--consumer", consumer]
        args += ["--claim-idle-ms", "500", "--reconcile-every", "2"]
        self.projector = subprocess.Popen(
            args, env=self.server.env, cwd=ROOT, process_group=0, stderr=subprocess.DEVNULL
        )


@pytest.fixture(scope="module")
def stack(redis_target: TestRedis) -> Iterator[Stack]:
    prefix = unique_prefix()
    server = LiveServer(redis_target.url, prefix, **SETTINGS).start()
    worker = start_tabletop(["worker", "--log-level", "WARNING"], server.env)
    client = redis_target.client()
    running = Stack(server, worker, client, prefix)
    try:
        yield running
    finally:
        if running.projector is not None:
            stop_process(running.projector)
        stop_process(worker)
        server.stop()
        delete_prefix(client, prefix)
        delete_rq_keys(client, server.queue)
        client.close()


@pytest.fixture
def api(stack: Stack) -> Iterator[HttpApi]:
    with ContractSession() as session:
        yield HttpApi(session, stack.server.url)


@pytest.fixture
def accounts_api(stack: Stack) -> Iterator[HttpApi]:
    """For the accounts' own endpoints (their contract is theirs to check)."""
    with requests.Session() as session:
        yield HttpApi(session, stack.server.url)


def create_bot_games(api: HttpApi, specs: list[tuple[str, dict[str, str], int]]) -> list[str]:
    return [
        create_game(api, game, players, bots=bots, options=SHORT[game])
        for game, bots, players in specs
    ]


def finished(api: HttpApi, game_id: str) -> bool:
    return bool(api.call("GET", f"/v1/games/{game_id}").body["status"] == "finished")


def board(api: HttpApi, game: str, limit: int = 500) -> list[dict[str, Any]]:
    """The whole leaderboard, walked page by page."""
    entries: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = f"?limit={limit}" + (f"&cursor={quote(cursor, safe='')}" if cursor else "")  # as a client must
        reply = api.call("GET", f"/v1/ratings/{game}{query}")
        assert reply.status == 200, reply.body
        entries += reply.body["ratings"]
        cursor = reply.body["next_cursor"]
        if cursor is None:
            return entries


def served(api: HttpApi) -> dict[str, dict[str, tuple[float, float, int]]]:
    out: dict[str, dict[str, tuple[float, float, int]]] = {}
    for game in ("schlitzohr", "abluxxen"):
        entries = board(api, game)
        if entries:
            out[game] = {
                ("bot:" if e["bot"] else "player:") + e["name"]: (e["mu"], e["sigma"], e["games"])
                for e in entries
            }
    return out


def guest_game(api: HttpApi) -> str:
    """A guest between a greedy and a random bot, played by this test."""
    game_id = create_game(
        api, "schlitzohr", 3, bots={"0": "greedy", "2": "random"}, options=SHORT["schlitzohr"]
    )
    seat = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": "guest-ann"}).body
    assert seat["seat"] == 1
    play_seat(api, game_id, seat["token"], seat=1)
    return game_id


def play_seat(api: HttpApi, game_id: str, token: str, seat: int) -> None:
    """Play random legal commands for ``seat`` whenever it is to act (bots play the
    others meanwhile), until the game ends."""
    pick = random.Random(7)
    for _ in range(5000):
        view = api.call("GET", f"/v1/games/{game_id}?wait=1", token=token).body
        if view["status"] == "finished":
            return
        if str(seat) not in [str(s) for s in view["to_act"]]:
            continue
        legal = api.call("GET", f"/v1/games/{game_id}/legal", token=token).body["commands"]
        reply = api.call(
            "POST",
            f"/v1/games/{game_id}/commands",
            token=token,
            body={"command": pick.choice(legal)},
            headers={"If-Match": f'"{view["version"]}"'},
        )
        assert reply.status in (200, 409), reply.body  # 409: a bot moved first
    raise AssertionError(f"game {game_id} did not end")


def register(api: HttpApi, stem: str) -> tuple[str, str]:
    """A fresh account: ``(name, player key)``."""
    name = f"{stem}{secrets.token_hex(3)}"
    reply = api.call("POST", "/v1/players", body={"name": name})
    assert reply.status == 201, reply.body
    return name, reply.body["player_key"]


def account_games(api: HttpApi, ada: str, bob: str) -> list[str]:
    """Two registered players against each other, and one against a greedy bot."""
    duel = create_game(api, "schlitzohr", 2, options=SHORT["schlitzohr"])
    tokens = []
    for key in (ada, bob):
        joined = api.call("POST", f"/v1/games/{duel}/seats", token=key, body={})
        assert joined.status == 201, joined.body
        tokens.append(joined.body["token"])
    assert play_randomly(api, duel, tokens, b"ratings-duel")["status"] == "finished"
    versus = create_game(api, "abluxxen", 2, bots={"1": "greedy"}, options=SHORT["abluxxen"])
    joined = api.call("POST", f"/v1/games/{versus}/seats", token=ada, body={})
    assert joined.status == 201 and joined.body["seat"] == 0, joined.body
    play_seat(api, versus, joined.body["token"], seat=0)
    return [duel, versus]


def ratings_dump(client: redis.Redis, prefix: str) -> dict[str, Any]:
    return {
        k: v
        for k, v in dump_read_models(client, prefix).items()
        if ":ratings:" in k or k.startswith(prefix + "ratings:")
    }


def test_ratings_equal_openskill_survive_a_projector_kill_and_a_rebuild(
    stack: Stack, api: HttpApi, accounts_api: HttpApi
) -> None:
    stack.start_projector("ratings-p1")
    ids = create_bot_games(api, FIRST) + create_bot_games(api, SECOND)
    wait_until(lambda: served(api), WAIT_S, "a first rating")
    assert stack.projector is not None
    stack.projector.send_signal(signal.SIGKILL)  # mid-series: games go on ending meanwhile
    stack.projector.wait(10)
    ids.append(guest_game(api))
    (ada, ada_key), (bob, bob_key) = register(accounts_api, "ada"), register(accounts_api, "bob")
    ids += account_games(accounts_api, ada_key, bob_key)
    wait_until(lambda: all(finished(api, g) for g in ids), WAIT_S, "every game to end")
    stack.start_projector("ratings-p2")

    played: list[Played] = []
    for game_id in ids:
        found = played_from_events(game_id, all_events(api, game_id))
        assert found is not None
        played.append(found)
    want = expected(played)
    # the guest is not rated; both accounts are, ada in both game types
    assert set(want["schlitzohr"]) == {
        "bot:random",
        "bot:greedy",
        "bot:strong",
        f"player:{ada}",
        f"player:{bob}",
    }
    assert f"player:{ada}" in want["abluxxen"]
    wait_until(lambda: served(api) == want, WAIT_S, "the ratings to equal openskill's")

    for game, table in want.items():
        entries = board(api, game, limit=1)  # paging one by one: every identity once, in order
        assert [e["position"] for e in entries] == list(range(1, len(table) + 1))
        ordinals = [e["ordinal"] for e in entries]
        assert ordinals == sorted(ordinals, reverse=True)
        for e in entries:
            assert e["ordinal"] == ordinal(e["mu"], e["sigma"])
        for ident, (mu, sigma, games) in table.items():
            kind, _, name = ident.partition(":")
            path = f"/v1/ratings/{game}/{'bots' if kind == 'bot' else 'players'}/{name}"
            page = api.call("GET", f"{path}?limit=500").body
            history = page["history"]
            assert len(history) == games == len({h["game_id"] for h in history})  # each once
            chain = history[::-1]
            assert chain[0]["before"]["mu"] == 25.0
            for older, newer in itertools.pairwise(chain):
                assert newer["before"] == older["after"]
            assert (chain[-1]["after"]["mu"], chain[-1]["after"]["sigma"]) == (mu, sigma)

    page = api.call("GET", f"/v1/players/{ada}").body
    for game, table in want.items():
        mine = page["ratings"][game]
        mu, sigma, games = table[f"player:{ada}"]
        assert (mine["rating"]["mu"], mine["rating"]["sigma"], mine["rating"]["games"]) == (
            mu,
            sigma,
            games,
        )
        assert len(mine["history"]) == games and mine["history_next"] is None
        assert mine["history"][0]["after"]["mu"] == mu
        walked, cursor = [], None
        while True:  # the paged history, one game a page
            query = "?limit=1" + (f"&cursor={cursor}" if cursor else "")
            reply = api.call("GET", f"/v1/ratings/{game}/players/{ada}{query}").body
            walked += reply["history"]
            cursor = reply["next_cursor"]
            if cursor is None:
                break
        assert walked == mine["history"]
    guest = api.call("GET", "/v1/players/guest-ann").body
    assert all(r["rating"] is None for r in guest["ratings"].values())

    with ContractSession() as session:  # the typed client, checked against the contract
        client = TabletopClient(stack.server.url, session=session)
        first = client.leaderboard("schlitzohr", limit=2)
        assert first["ratings"] == board(api, "schlitzohr")[:2] and first["next_cursor"]
        greedy = client.rating_history("schlitzohr", "greedy", bot=True, limit=500)
        assert greedy["rating"] is not None
        assert (
            greedy["rating"]["games"]
            == want["schlitzohr"]["bot:greedy"][2]
            == len(greedy["history"])
        )
        assert (
            client.rating_history("abluxxen", ada)["rating"]
            == page["ratings"]["abluxxen"]["rating"]
        )

    live = ratings_dump(stack.client, stack.prefix)
    assert live
    rebuild = start_tabletop(
        ["projections", "rebuild"], stack.server.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    _out, err = rebuild.communicate(timeout=120)
    assert rebuild.returncode == 0, err
    assert ratings_dump(stack.client, stack.prefix) == live
    assert served(api) == want


def test_ratings_errors_and_unknown_identities(api: HttpApi) -> None:
    assert api.call("GET", "/v1/ratings/chess").code == "unknown_game"
    assert api.call("GET", "/v1/ratings/chess").status == 404
    assert api.call("GET", "/v1/ratings/schlitzohr/bots/grandmaster").code == "unknown_bot_level"
    for query in (
        "limit=0",
        "limit=x",
        "limit=100000",
        "cursor=nonsense",
        "cursor=1.5:nobody",
        "page=2",
    ):
        reply = api.call("GET", f"/v1/ratings/schlitzohr?{query}")
        assert (reply.status, reply.code) == (400, "invalid_parameter"), query
    reply = api.call("GET", "/v1/ratings/abluxxen/players/nobody-at-all?cursor=12:x")
    assert reply.status == 200 and reply.body["history"] == []
    assert api.call("GET", "/v1/ratings/abluxxen/players/nobody-at-all?cursor=x:1").status == 400
    page = api.call("GET", "/v1/players/nobody-at-all").body
    assert page["ratings"]["abluxxen"] == {"rating": None, "history": [], "history_next": None}
