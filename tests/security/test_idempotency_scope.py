"""Idempotency keys belong to their actor (issue 11, finding 2).

Repros: a player who sent ``Idempotency-Key: seed-revealed`` blocked the seed reveal for
good (the game-ending command answered 500, ``/verification`` said ``ok: false``); a
player who sent the bot's predictable key (``bot:<game>:<version>:<seat>``) froze that
bot seat; and one seat's key must never answer another seat's command. Defence: every
key is stored under the verified actor's scope (``service.app.retries``), the seed
reveal needs no key.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests
from support.http_games import HttpApi, create_game, seat_everyone
from support.live_server import LiveServer
from support.processes import running, wait_until
from support.redis import TestRedis
from support.security_servers import own_server

from engine.rng import SeededRandom

SERVER_KEYS = ("seed-revealed", "bot:{game}:{version}:{seat}", "bot:{seat}:{version}", "sys:x")
"""Keys of the server's own appends, old and new spellings."""


@pytest.fixture(scope="module")
def quiet_server(redis_target: TestRedis) -> Iterator[LiveServer]:
    """Whole games from one address: a server of this module's own, rate limit off."""
    with own_server(redis_target, rate_limit_per_minute=0) as server:
        yield server


@pytest.fixture
def api(quiet_server: LiveServer) -> Iterator[HttpApi]:
    with requests.Session() as session:
        yield HttpApi(session, quiet_server.url)


def command_path(game_id: str) -> str:
    return f"/v1/games/{game_id}/commands"


def submit(api: HttpApi, game_id: str, token: str, command: Any, version: int, key: str) -> Any:
    return api.call(
        "POST",
        command_path(game_id),
        token=token,
        body={"command": command},
        headers={"If-Match": f'"{version}"', "Idempotency-Key": key},
    )


def test_a_player_sending_the_seed_reveal_key_cannot_block_the_reveal(api: HttpApi) -> None:
    game_id = create_game(api, "schlitzohr", 2, options={"turn_cap": 10})
    tokens = seat_everyone(api, game_id, 2)
    pick = SeededRandom(b"seed-key", "pick")
    view = api.call("GET", f"/v1/games/{game_id}").body
    taken = False
    for step in range(5000):
        if view["status"] == "finished":
            break
        seat = int(min(view["to_act"], key=int))
        legal = api.call("GET", f"/v1/games/{game_id}/legal", token=tokens[seat]).body["commands"]
        command = legal[pick.randbelow(len(legal), str(step))]
        # Seat 0's first command takes the seed reveal's old key (the first to use a key
        # owns it: the reveal once came after and failed on it).
        key = "seed-revealed" if seat == 0 and not taken else f"k{step}"
        taken = taken or key == "seed-revealed"
        reply = submit(api, game_id, tokens[seat], command, view["version"], key)
        assert reply.status == 200, reply.body  # the game-ending command included
        view = reply.body["view"]
    assert view["status"] == "finished"
    final = api.call("GET", f"/v1/games/{game_id}").body
    assert final["seed"] is not None
    verification = api.call("GET", f"/v1/games/{game_id}/verification")
    assert verification.status == 200 and verification.body["ok"] is True, verification.body


def test_a_player_sending_the_bots_keys_does_not_freeze_the_bot(
    api: HttpApi, quiet_server: LiveServer
) -> None:
    game_id = create_game(api, "schlitzohr", 2, options={"turn_cap": 10}, bots={"1": "random"})
    (token,) = [api.call("POST", f"/v1/games/{game_id}/seats", body={"name": "eve"}).body["token"]]
    used: set[str] = set()
    with running(["worker"], quiet_server.env):
        for step in range(200):
            view = wait_until(
                lambda: _my_turn_or_end(api, game_id), 60, "the bot to play its turn", interval=0.1
            )
            if view["status"] == "finished":
                break
            version = view["version"]
            legal = api.call("GET", f"/v1/games/{game_id}/legal", token=token).body["commands"]
            # The bot will act at version + k (k = this command's events): take every
            # spelling of its key at the next few versions, one per command.
            key = SERVER_KEYS[step % len(SERVER_KEYS)].format(
                game=game_id, version=version + 1 + step % 3, seat=1
            )
            key = key if key not in used else f"k{step}"  # a key reused for another command: 422
            used.add(key)
            reply = submit(api, game_id, token, legal[0], version, key)
            assert reply.status == 200, reply.body
        else:
            raise AssertionError("the game did not end")
    events = api.call("GET", f"/v1/games/{game_id}/events?limit=500").body["events"]
    assert any(e["actor"] == {"kind": "bot", "seat": 1} for e in events)


def _my_turn_or_end(api: HttpApi, game_id: str) -> dict[str, Any] | None:
    view = api.call("GET", f"/v1/games/{game_id}").body
    return view if view["status"] == "finished" or "0" in view["to_act"] else None


def test_another_seat_reusing_a_key_does_not_get_the_first_seats_answer(api: HttpApi) -> None:
    game_id = create_game(api, "abluxxen", 2)
    tokens = seat_everyone(api, game_id, 2)
    view = api.call("GET", f"/v1/games/{game_id}").body
    seat = int(min(view["to_act"], key=int))
    legal = api.call("GET", f"/v1/games/{game_id}/legal", token=tokens[seat]).body["commands"]
    first = submit(api, game_id, tokens[seat], legal[0], view["version"], "shared-key")
    assert first.status == 200
    other = 1 - seat
    # The same key, command and version from the other seat: its own key, decided anew
    # (here: a conflict, the game moved on) -- never the first seat's view and events.
    reply = submit(api, game_id, tokens[other], legal[0], view["version"], "shared-key")
    assert reply.status == 409 and reply.code == "version_conflict", reply.body
    assert "view" not in reply.body
    # And at the current version: a verdict on its own command, not seat's answer.
    reply = submit(api, game_id, tokens[other], legal[0], first.body["version"], "shared-key")
    assert reply.status != 200 or reply.body["view"]["you"] == other
    # The first seat's retry still gets its own answer, byte for byte.
    again = api.session.post(
        api.base_url + command_path(game_id),
        json={"command": legal[0]},
        headers={
            "Authorization": f"Bearer {tokens[seat]}",
            "If-Match": f'"{view["version"]}"',
            "Idempotency-Key": "shared-key",
        },
        timeout=30,
    )
    assert again.status_code == 200 and again.json() == first.body
