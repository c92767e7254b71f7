"""Accounts over real HTTP on a live server: register, play with the player key, lose
the seat token and take the seat back, names reserved against doubles, look-alikes
and guests."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from support.contract import ContractSession
from support.http_games import HttpApi, create_game, play_randomly
from support.live_server import LiveServer


@pytest.fixture
def api(live_server: LiveServer) -> Iterator[HttpApi]:
    with ContractSession() as session:
        yield HttpApi(session, live_server.url)


def _fresh(stem: str) -> str:
    """A name no other test registers (tests share one server)."""
    return f"{stem}{secrets.token_hex(3)}"


def register(api: HttpApi, name: str) -> dict[str, Any]:
    reply = api.call("POST", "/v1/players", body={"name": name})
    assert reply.status == 201, reply.body
    assert reply.headers["Cache-Control"] == "no-store"
    return dict(reply.body)


def test_an_account_plays_loses_its_token_and_takes_the_seat_back(api: HttpApi) -> None:
    name = _fresh("ada")
    player_key = register(api, name)["player_key"]
    game_id = create_game(api, "schlitzohr", 2)
    joined = api.call("POST", f"/v1/games/{game_id}/seats", token=player_key, body={})
    assert joined.status == 201, joined.body
    assert joined.body["view"]["seats"][0] == {"seat": 0, "name": name, "bot": None, "guest": False}
    old_token = joined.body["token"]
    guest = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": _fresh("guest")})
    assert guest.status == 201 and guest.body["view"]["seats"][1]["guest"] is True
    # The player key acts for the account's seat: view, legal moves, events.
    view = api.call("GET", f"/v1/games/{game_id}", token=player_key)
    assert view.status == 200 and view.body["you"] == 0
    assert api.call("GET", f"/v1/games/{game_id}/legal", token=player_key).status == 200
    # The token is lost: take the seat back.
    fresh = api.call("POST", f"/v1/games/{game_id}/seats/0/token", token=player_key)
    assert fresh.status == 201, fresh.body
    assert fresh.headers["Cache-Control"] == "no-store"
    new_token = fresh.body["token"]
    assert new_token != old_token and fresh.body["seat"] == 0
    refused = api.call("GET", f"/v1/games/{game_id}", token=old_token)
    assert refused.status == 401 and refused.body["code"] == "unauthenticated"
    version = fresh.body["view"]["version"]
    legal = api.call("GET", f"/v1/games/{game_id}/legal", token=new_token).body
    if 0 in [int(s) for s in legal["to_act"]]:
        stale = api.call(
            "POST",
            f"/v1/games/{game_id}/commands",
            token=old_token,
            body={"command": legal["commands"][0], "expected_version": version},
        )
        assert stale.status == 401, stale.body
    # The game plays on to its end with the new token (seat 0) and the guest's (seat 1),
    # every other move of seat 0 sent with the player key instead.
    final = play_randomly(api, game_id, [new_token, guest.body["token"]], b"accounts")
    assert final["status"] == "finished"
    # Someone else's player key holds no seat here.
    other_key = register(api, _fresh("eve"))["player_key"]
    other = api.call("POST", f"/v1/games/{game_id}/seats/0/token", token=other_key)
    assert other.status == 403 and other.body["code"] == "not_seated"
    # After the end, no seat can be taken back.
    over = api.call("POST", f"/v1/games/{game_id}/seats/0/token", token=player_key)
    assert over.status == 422 and over.body["code"] == "game_over"
    verified = api.call("GET", f"/v1/games/{game_id}/verification")
    assert verified.status == 200 and verified.body["ok"] is True, verified.body


def test_the_player_key_sends_commands_and_one_seat_per_game(api: HttpApi) -> None:
    player_key = register(api, _fresh("bo"))["player_key"]
    game_id = create_game(api, "schlitzohr", 2)
    assert api.call("POST", f"/v1/games/{game_id}/seats", token=player_key, body={}).status == 201
    twice = api.call("POST", f"/v1/games/{game_id}/seats", token=player_key, body={})
    assert twice.status == 409 and twice.body["code"] == "already_seated"
    guest = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": _fresh("g")}).body["token"]
    play_randomly(api, game_id, [player_key, guest], b"player-key")
    events = api.call("GET", f"/v1/games/{game_id}/events?limit=500").body["events"]
    taken = [e["data"] for e in events if e["type"] == "SeatTaken"]
    assert taken[0]["account"] == taken[0]["name"] and taken[0]["guest"] is False
    assert taken[1]["guest"] is True and "account" not in taken[1]
    # Listed among the account's games.
    mine = api.call("GET", "/v1/players/me/games", token=player_key)
    assert mine.status == 200 and [g["game_id"] for g in mine.body["games"]] == [game_id]
    assert api.call("GET", "/v1/players/me/games").status == 401
    assert api.call("GET", "/v1/players/me/games", token="pk_" + "0" * 64 + "." + "x" * 43).status == 401


def test_a_player_key_tells_its_account_name_and_nothing_without_one(api: HttpApi) -> None:
    name = _fresh("Zoë")
    registered = register(api, name)
    me = api.call("GET", "/v1/players/me/account", token=registered["player_key"])
    assert (me.status, me.body) == (200, {"name": registered["name"]})
    assert me.headers["Cache-Control"] == "no-store"
    for token in (None, "pk_" + "0" * 64 + "." + "x" * 43, "not-a-key"):
        refused = api.call("GET", "/v1/players/me/account", token=token)
        assert refused.status == 401, (token, refused.body)


SPOOFS = [
    lambda n: n.upper(),  # case
    lambda n: n.replace("a", "\u0430"),  # Cyrillic а for Latin a
    lambda n: "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in n),  # fullwidth
    lambda n: n.replace("l", "1"),  # digit one for l
    lambda n: n.replace("m", "rn"),  # rn for m
    lambda n: n.replace("l", "I"),  # capital I for l
]


def test_a_name_cannot_be_taken_twice_nor_spoofed_nor_used_by_a_guest(api: HttpApi) -> None:
    name = "malla" + secrets.token_hex(2).replace("1", "x")
    register(api, name)
    again = api.call("POST", "/v1/players", body={"name": name})
    assert again.status == 409 and again.body["code"] == "name_registered"
    for spoof in SPOOFS:
        spelled = spoof(name)
        assert spelled != name
        reply = api.call("POST", "/v1/players", body={"name": spelled})
        assert reply.status == 409 and reply.body["code"] == "name_registered", (spelled, reply.body)
    game_id = create_game(api, "abluxxen", 2)
    for spelled in [name, *(spoof(name) for spoof in SPOOFS)]:
        reply = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": spelled})
        assert reply.status == 409 and reply.body["code"] == "name_reserved", (spelled, reply.body)
    # An unrelated name is free, for an account and for a guest.
    guest = _fresh("zed")
    assert api.call("POST", f"/v1/games/{game_id}/seats", body={"name": guest}).status == 201
    # The player page says who is registered.
    assert api.call("GET", f"/v1/players/{name}").body["registered"] is True
    assert api.call("GET", f"/v1/players/{guest}").body["registered"] is False
    assert api.call("GET", f"/v1/players/{name.upper()}").body["registered"] is False  # another spelling


def test_no_person_takes_or_registers_a_bot_seats_name(api: HttpApi) -> None:
    # The server names its bot seats "<level>-bot-<seat>": a guest or an account under
    # such a name (or a look-alike) would pass for a bot in the lobby and every view.
    created = api.call("POST", "/v1/games", body={"game": "abluxxen", "players": 4, "bots": {"3": "strong"}})
    game_id = created.body["game_id"]
    bot_name = created.body["seats"][3]["name"]
    head = api.call("GET", f"/v1/games/{game_id}").body["version"]
    for name in [bot_name, "greedy-bot-0", "random-bot-12", "Strong-Bot-2", "greedy-bot-l", "gr\u0435edy-bot-1"]:
        seat = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": name})
        assert seat.status == 409 and seat.body["code"] == "name_reserved", (name, seat.body)
        account = api.call("POST", "/v1/players", body={"name": name})
        assert account.status == 409 and account.body["code"] == "name_reserved", (name, account.body)
    assert api.call("GET", f"/v1/games/{game_id}").body["version"] == head  # nothing written
    # Near misses are ordinary names.
    for name in [_fresh("greedy-bot-x"), _fresh("greedy bot "), _fresh("my-greedy-bot-")]:
        assert api.call("POST", f"/v1/games/{game_id}/seats", body={"name": name}).status == 201, name


def test_names_never_collide_with_server_keys(api: HttpApi, live_server: LiveServer) -> None:
    for name in ["{lobby}", "x}:games", "*", "tt:game:{abc}:events"]:
        name = name + secrets.token_hex(2)
        assert api.call("POST", "/v1/players", body={"name": name}).status == 201
    bad = api.call("POST", "/v1/players", body={"name": "a\u202eb"})
    assert bad.status == 422 and bad.body["code"] == "bad_player_name"
