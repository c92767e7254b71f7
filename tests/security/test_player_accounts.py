"""Accounts under attack on a live server: player keys act only for their own
account's seats, made-up player keys get no rate-limit bucket of their own,
registering names is limited per address, one account's streams are capped, and a
replaced (leaked) player key stops working in every server process."""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, ExitStack

import redis
import requests
from support.http_games import HttpApi, create_game, play_randomly
from support.live_server import LiveServer
from support.security_games import problem

from events.accounts.keys import AccountKeys
from events.accounts.names import name_key
from service.accounts.store import RECHECK_S

ServerFactory = Callable[..., AbstractContextManager[LiveServer]]


def _register(url: str, name: str) -> str:
    reply = requests.post(f"{url}/v1/players", json={"name": name}, timeout=10)
    assert reply.status_code == 201, reply.text
    return str(reply.json()["player_key"])


def _auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def test_a_player_key_acts_only_for_its_own_accounts_seat(secure_server: LiveServer) -> None:
    url = secure_server.url
    ada = _register(url, "ada" + secrets.token_hex(3))
    eve = _register(url, "eve" + secrets.token_hex(3))
    api = HttpApi(requests.Session(), url)
    game_id = create_game(api, "schlitzohr", 2)
    assert requests.post(f"{url}/v1/games/{game_id}/seats", json={}, headers=_auth(ada), timeout=10).status_code == 201
    # Eve, not seated, can neither read Ada's view, act, nor take Ada's seat back.
    view = requests.get(f"{url}/v1/games/{game_id}", headers=_auth(eve), timeout=10)
    assert (view.status_code, problem(view)["code"]) == (403, "not_seated")
    steal = requests.post(f"{url}/v1/games/{game_id}/seats/0/token", headers=_auth(eve), timeout=10)
    assert (steal.status_code, problem(steal)["code"]) == (403, "not_seated")
    # A seat token is no player key, and a re-spelled player key fits no account.
    guest = requests.post(f"{url}/v1/games/{game_id}/seats", json={"name": "g" + secrets.token_hex(3)}, timeout=10)
    token = guest.json()["token"]
    assert requests.post(f"{url}/v1/games/{game_id}/seats/1/token", headers=_auth(token), timeout=10).status_code == 401
    forged = ada[:-4] + ("AAAA" if not ada.endswith("AAAA") else "BBBB")
    assert requests.get(f"{url}/v1/games/{game_id}", headers=_auth(forged), timeout=10).status_code == 401
    assert requests.get(f"{url}/v1/players/me/stream", headers=_auth(forged), timeout=10).status_code == 401


def test_made_up_player_keys_share_the_address_bucket(start_server: ServerFactory) -> None:
    limit = 10
    with start_server(rate_limit_per_minute=limit) as server:
        session = requests.Session()
        replies = [
            session.get(
                server.url + "/v1/players/me/games",
                headers=_auth(f"pk_{secrets.token_hex(32)}.{secrets.token_urlsafe(32)}"),
            )
            for _ in range(2 * limit)
        ]
        statuses = [r.status_code for r in replies]
        assert set(statuses) == {401, 429}, statuses
        assert problem(replies[-1])["code"] == "rate_limited"


def test_registering_names_is_limited_per_address(start_server: ServerFactory) -> None:
    with start_server(create_limit_per_minute=3, rate_limit_per_minute=0) as server:
        replies = [
            requests.post(f"{server.url}/v1/players", json={"name": f"n{i}{secrets.token_hex(3)}"}, timeout=10)
            for i in range(6)
        ]
        statuses = [r.status_code for r in replies]
        assert statuses[:3] == [201] * 3 and statuses[-1] == 429, statuses
        assert problem(replies[-1])["code"] == "create_rate_limited"


def test_one_accounts_streams_are_capped(start_server: ServerFactory) -> None:
    cap = 2
    with start_server(streams_per_client=cap, sse_max_s=60.0, sse_heartbeat_s=30.0) as server:
        key = _register(server.url, "streamer")
        other = _register(server.url, "other")
        with ExitStack() as held:
            refused = None
            # The cap is per server process (two here): refused at the latest past 2 x cap.
            for _ in range(2 * cap + 1):
                reply = requests.get(f"{server.url}/v1/players/me/stream", headers=_auth(key), stream=True, timeout=10)
                held.callback(reply.close)
                if reply.status_code != 200:
                    refused = reply
                    break
            assert refused is not None, "one account held more streams than the cap allows"
            assert (refused.status_code, problem(refused)["code"]) == (429, "too_many_streams")
            # Another account is not held back by the first one's streams.
            mine = requests.get(f"{server.url}/v1/players/me/stream", headers=_auth(other), stream=True, timeout=10)
            held.callback(mine.close)
            assert mine.status_code == 200


def test_a_revoked_seat_token_cannot_spend_the_seats_budget(start_server: ServerFactory) -> None:
    limit = 12
    with start_server(rate_limit_per_minute=limit, create_limit_per_minute=0) as server:
        url, session = server.url, requests.Session()
        key = _register(url, "victim")
        game_id = session.post(f"{url}/v1/games", json={"game": "schlitzohr", "players": 2}).json()["game_id"]
        old = session.post(f"{url}/v1/games/{game_id}/seats", json={}, headers=_auth(key)).json()["token"]
        session.post(f"{url}/v1/games/{game_id}/seats", json={"name": "g" + secrets.token_hex(3)})
        for _ in range(3):  # the token is verified on a running game: remembered per process
            assert session.get(f"{url}/v1/games/{game_id}", headers=_auth(old)).status_code == 200
        new = session.post(f"{url}/v1/games/{game_id}/seats/0/token", headers=_auth(key)).json()["token"]
        thief = [session.get(f"{url}/v1/games/{game_id}", headers=_auth(old)).status_code for _ in range(2 * limit)]
        assert set(thief) <= {401, 429} and 429 in thief, thief  # the thief's address pays
        assert session.get(f"{url}/v1/games/{game_id}", headers=_auth(new)).status_code == 200


def _first_notice(url: str, ticket: str) -> str:
    """The ``data:`` of the first notice the player stream opened with ``ticket`` sends."""
    with requests.get(f"{url}/v1/players/me/stream", params={"ticket": ticket}, stream=True, timeout=10) as reply:
        assert reply.status_code == 200 and reply.headers["Content-Type"].startswith("text/event-stream")
        for line in reply.iter_lines(decode_unicode=True):
            if line.startswith("data: "):
                return str(line[len("data: "):])
    raise AssertionError("the stream ended without a notice")


def test_a_player_stream_ticket_opens_its_own_accounts_stream_once(secure_server: LiveServer) -> None:
    url = secure_server.url
    names = {who: who + secrets.token_hex(3) for who in ("ada", "eve")}
    keys = {who: _register(url, name) for who, name in names.items()}
    # One notice in each account's stream, written where the projector writes them, so
    # the test can tell whose stream a ticket opened.
    store = redis.Redis.from_url(secure_server.env["TABLETOP_REDIS_URL"])
    prefix = secure_server.env["TABLETOP_KEY_PREFIX"]
    for who, name in names.items():
        notices = AccountKeys.of(prefix, name_key(name)).notices
        store.xadd(notices, {"n": json.dumps({"kind": "seated", "for": who})}, id="1-0")
    store.close()

    issued = requests.post(f"{url}/v1/players/me/stream-tickets", headers=_auth(keys["ada"]), timeout=10)
    assert issued.status_code == 201 and issued.headers["Cache-Control"] == "no-store"
    ticket = issued.json()
    assert ticket["seat"] is None and ticket["expires_in"] > 0 and ticket["ticket"] not in keys["ada"]
    assert json.loads(_first_notice(url, ticket["ticket"]))["for"] == "ada"
    # Spent: one answer for a used, an unknown and a game's ticket alike.
    again = requests.get(f"{url}/v1/players/me/stream", params={"ticket": ticket["ticket"]}, timeout=10)
    assert (again.status_code, problem(again)["code"]) == (401, "invalid_ticket")
    game_id = create_game(HttpApi(requests.Session(), url), "schlitzohr", 2)
    requests.post(f"{url}/v1/games/{game_id}/seats", json={}, headers=_auth(keys["eve"]), timeout=10)
    game_ticket = requests.post(
        f"{url}/v1/games/{game_id}/stream-tickets", headers=_auth(keys["eve"]), timeout=10
    ).json()["ticket"]
    crossed = requests.get(f"{url}/v1/players/me/stream", params={"ticket": game_ticket}, timeout=10)
    assert (crossed.status_code, problem(crossed)["code"]) == (401, "invalid_ticket")
    # ... nor does a player ticket open a game's stream, or act as a bearer token.
    eve_ticket = requests.post(f"{url}/v1/players/me/stream-tickets", headers=_auth(keys["eve"]), timeout=10).json()["ticket"]
    on_game = requests.get(f"{url}/v1/games/{game_id}/events/stream", params={"ticket": eve_ticket}, timeout=10)
    assert (on_game.status_code, problem(on_game)["code"]) == (401, "invalid_ticket")
    as_bearer = requests.get(f"{url}/v1/players/me/games", headers=_auth(eve_ticket), timeout=10)
    assert as_bearer.status_code == 401
    # A fresh ticket of Eve's opens Eve's stream, not Ada's; none is issued without a key.
    fresh = requests.post(f"{url}/v1/players/me/stream-tickets", headers=_auth(keys["eve"]), timeout=10).json()["ticket"]
    assert json.loads(_first_notice(url, fresh))["for"] == "eve"
    anonymous = requests.post(f"{url}/v1/players/me/stream-tickets", timeout=10)
    assert (anonymous.status_code, problem(anonymous)["code"]) == (401, "player_key_required")


def test_a_rotated_player_key_is_refused_by_every_process_and_the_new_one_acts(secure_server: LiveServer) -> None:
    url = secure_server.url
    name = "kay" + secrets.token_hex(3)
    old = _register(url, name)
    api = HttpApi(requests.Session(), url)
    # A short game: the account's requests (about two a command) stay far below its
    # 600 a minute however long the random play would otherwise run (a 300-turn game did not).
    game_id = create_game(api, "schlitzohr", 2, options={"turn_cap": 10})
    assert requests.post(f"{url}/v1/games/{game_id}/seats", json={}, headers=_auth(old), timeout=10).status_code == 201
    guest = requests.post(f"{url}/v1/games/{game_id}/seats", json={"name": "g" + secrets.token_hex(3)}, timeout=10)
    # A new connection per request, so that the server's processes verify (and keep) the old key.
    for _ in range(12):
        assert requests.get(f"{url}/v1/games/{game_id}", headers=_auth(old), timeout=10).status_code == 200

    # The key is replaced through another server on the same store: processes that
    # never saw the rotation must stop trusting the old key by themselves.
    env = secure_server.env
    other = LiveServer(env["TABLETOP_REDIS_URL"], env["TABLETOP_KEY_PREFIX"]).start()
    try:
        rotated = requests.post(f"{other.url}/v1/players/me/key", headers=_auth(old), timeout=10)
        assert rotated.status_code == 201, rotated.text
        assert rotated.headers["Cache-Control"] == "no-store"
        new = rotated.json()["player_key"]
        assert rotated.json()["name"] == name and new != old
        again = requests.post(f"{other.url}/v1/players/me/key", headers=_auth(old), timeout=10)
        assert (again.status_code, problem(again)["code"]) == (401, "unauthenticated")
    finally:
        other.stop()

    time.sleep(RECHECK_S + 0.2)
    refused = [
        requests.request(method, url + path, headers=_auth(old), timeout=10)
        for method, path in [("GET", f"/v1/games/{game_id}"), ("GET", "/v1/players/me/games")] * 8
        + [("GET", "/v1/players/me/stream"), ("POST", "/v1/players/me/stream-tickets")] * 2
    ]
    assert {(r.status_code, problem(r)["code"]) for r in refused} == {(401, "unauthenticated")}
    # The account is the same: its seat, its games, its name; the game plays on with the new key.
    view = requests.get(f"{url}/v1/games/{game_id}", headers=_auth(new), timeout=10)
    assert view.status_code == 200 and view.json()["you"] == 0
    mine = requests.get(f"{url}/v1/players/me/games", headers=_auth(new), timeout=10).json()["games"]
    assert [g["game_id"] for g in mine] == [game_id]
    final = play_randomly(api, game_id, [new, guest.json()["token"]], b"rotated")
    assert final["status"] == "finished"
    taken = requests.post(f"{url}/v1/players", json={"name": name}, timeout=10)
    assert (taken.status_code, problem(taken)["code"]) == (409, "name_registered")
