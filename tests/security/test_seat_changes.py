"""A credential that stops holding its seat stops seeing the seat's hidden facts: on a
live server, with every read path a client keeps open (streams, tickets, long polls).

The attack that was found: an Abluxxen hand is dealt when the game is created, and a
seat showed it to whoever held the seat -- so one person could sit at seat 0, read its
hand, leave, sit at seat 1 and know both hands once an opponent took seat 0. And a
stream (or a ticket, or a long poll) opened with a credential went on as that seat
after the seat was left, its token reissued or the player key replaced.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import requests
from support.live_server import LiveServer
from support.redis import TestRedis
from support.security_games import problem
from support.security_servers import own_server

from events.accounts.keys import AccountKeys
from events.accounts.names import name_key
from service.accounts.store import RECHECK_S


@pytest.fixture(scope="module")
def server(redis_target: TestRedis) -> Iterator[LiveServer]:
    """Streams that outlast each test's steps (30 s), so an early end is the server's doing."""
    with own_server(redis_target, sse_max_s=30.0, sse_heartbeat_s=0.5, long_poll_max_s=10.0) as live:
        yield live


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Listener:
    """An SSE client in a thread: every event it received, and whether the stream ended."""

    def __init__(self, url: str, **kwargs: Any) -> None:
        self.events: list[dict[str, Any]] = []
        self.status: int | None = None
        self.ended = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(url, kwargs), daemon=True)
        self._thread.start()

    def _run(self, url: str, kwargs: dict[str, Any]) -> None:
        try:
            with requests.get(url, stream=True, timeout=40, **kwargs) as reply:
                self.status = reply.status_code
                for line in reply.iter_lines(decode_unicode=True):
                    if line.startswith("data: "):
                        self.events.append(json.loads(line[len("data: "):]))
        except requests.RequestException:
            pass  # the server stopped under a stream still open (the module's end)
        finally:
            self.ended.set()

    def caught_up(self, version: int) -> None:
        deadline = time.monotonic() + 10
        while not (self.events and self.events[-1]["version"] >= version):
            assert time.monotonic() < deadline and not self.ended.is_set(), (self.status, self.events[-3:])
            time.sleep(0.02)


def _join(url: str, game_id: str, **body: Any) -> dict[str, Any]:
    headers = _auth(body.pop("key")) if "key" in body else {}
    reply = requests.post(f"{url}/v1/games/{game_id}/seats", json=body, headers=headers, timeout=10)
    assert reply.status_code == 201, reply.text
    return dict(reply.json())


def _abluxxen(url: str) -> str:
    reply = requests.post(f"{url}/v1/games", json={"game": "abluxxen", "players": 2}, timeout=10)
    return str(reply.json()["game_id"])


def _ticket(url: str, game_id: str, token: str) -> str:
    reply = requests.post(f"{url}/v1/games/{game_id}/stream-tickets", headers=_auth(token), timeout=10)
    assert reply.status_code == 201, reply.text
    return str(reply.json()["ticket"])


def _act(url: str, game_id: str, tokens: dict[int, str]) -> int:
    """Whoever is to act sends its first legal command; the version after it."""
    view = requests.get(f"{url}/v1/games/{game_id}", timeout=10).json()
    seat = int(min(view["to_act"], key=int))
    legal = requests.get(f"{url}/v1/games/{game_id}/legal", headers=_auth(tokens[seat]), timeout=10).json()
    reply = requests.post(
        f"{url}/v1/games/{game_id}/commands",
        json={"command": legal["commands"][0], "expected_version": legal["version"]},
        headers=_auth(tokens[seat]),
        timeout=10,
    )
    assert reply.status_code == 200, reply.text
    return int(reply.json()["version"])


def test_one_person_sitting_in_every_seat_in_turn_learns_no_hand(server: LiveServer) -> None:
    url = server.url
    game_id = _abluxxen(url)
    eve = _join(url, game_id, name="eve" + secrets.token_hex(3), seat=0)
    # Before the start a seat is a spectator's view: its hand is dealt, but the seat can
    # still change hands.
    assert eve["view"]["state"]["hand"] is None and eve["view"]["you"] == 0
    view = requests.get(f"{url}/v1/games/{game_id}", headers=_auth(eve["token"]), timeout=10).json()
    assert view["state"]["hand"] is None
    page = requests.get(f"{url}/v1/games/{game_id}/events", headers=_auth(eve["token"]), timeout=10).json()
    assert [e["private"] for e in page["events"]] == [None] * len(page["events"])
    export = requests.get(f"{url}/v1/games/{game_id}/export", headers=_auth(eve["token"]), timeout=10)
    assert all(json.loads(line)["private"] is None for line in export.text.splitlines())
    ticket = _ticket(url, game_id, eve["token"])
    stream = Listener(f"{url}/v1/games/{game_id}/events/stream", headers=_auth(eve["token"]))
    stream.caught_up(eve["view"]["version"])

    left = requests.delete(f"{url}/v1/games/{game_id}/seats/0", headers=_auth(eve["token"]), timeout=10)
    assert left.status_code == 200, left.text
    assert stream.ended.wait(5), "the stream of a seat that was left went on"
    assert stream.events[-1]["type"] == "SeatLeft"
    refused = requests.get(f"{url}/v1/games/{game_id}/events/stream", params={"ticket": ticket}, timeout=10)
    assert (refused.status_code, problem(refused)["code"]) == (401, "invalid_ticket")

    # Eve sits at seat 1 under another name, Ada takes seat 0: the game starts.
    eve_again = _join(url, game_id, name="eve2" + secrets.token_hex(3), seat=1)
    ada = _join(url, game_id, name="ada" + secrets.token_hex(3), seat=0)
    assert ada["view"]["status"] == "running" and ada["view"]["state"]["hand"]
    assert all(e["private"] is None for e in stream.events)  # all Eve's first stream showed
    eve_view = requests.get(f"{url}/v1/games/{game_id}", headers=_auth(eve_again["token"]), timeout=10).json()
    eve_page = requests.get(f"{url}/v1/games/{game_id}/events", headers=_auth(eve_again["token"]), timeout=10).json()
    dealt = {e["data"]["seat"]: e["private"] for e in eve_page["events"] if e["type"] == "HandDealt"}
    assert dealt[0] is None and dealt[1] is not None  # seated for good now: its own hand only
    assert sorted(map(str, dealt[1]["cards"])) == sorted(map(str, eve_view["state"]["hand"]))
    assert requests.get(f"{url}/v1/games/{game_id}", headers=_auth(eve["token"]), timeout=10).status_code == 401


def test_a_stream_opened_before_the_start_shows_its_seats_facts_once_play_begins(server: LiveServer) -> None:
    url = server.url
    game_id = _abluxxen(url)
    ada = _join(url, game_id, name="ada" + secrets.token_hex(3))
    stream = Listener(f"{url}/v1/games/{game_id}/events/stream", headers=_auth(ada["token"]))
    stream.caught_up(ada["view"]["version"])
    bo = _join(url, game_id, name="bo" + secrets.token_hex(3))
    stream.caught_up(bo["view"]["version"])
    stream.caught_up(_act(url, game_id, {0: ada["token"], 1: bo["token"]}))
    started = next(e["version"] for e in stream.events if e["type"] == "PlayStarted")
    before = [e for e in stream.events if e["version"] <= started]
    assert all(e["private"] is None for e in before)  # the deal, shown as to a spectator
    # From the start on the stream is the seat's: the same events as the seat's own page,
    # its own command among them (withheld from spectators while the game runs).
    page = requests.get(
        f"{url}/v1/games/{game_id}/events", params={"after": started}, headers=_auth(ada["token"]), timeout=10
    ).json()["events"]
    assert [e for e in stream.events if e["version"] > started] == page
    assert any(e["command"] is not None for e in page)
    assert not stream.ended.is_set()


def test_a_credential_taken_back_ends_its_stream_ticket_and_long_poll(server: LiveServer) -> None:
    url = server.url
    key = requests.post(f"{url}/v1/players", json={"name": "kim" + secrets.token_hex(3)}, timeout=10).json()["player_key"]
    game_id = _abluxxen(url)
    old = _join(url, game_id, key=key)["token"]
    guest = _join(url, game_id, name="g" + secrets.token_hex(3))
    version = guest["view"]["version"]
    by_token = Listener(f"{url}/v1/games/{game_id}/events/stream", headers=_auth(old))
    by_key = Listener(f"{url}/v1/games/{game_id}/events/stream", headers=_auth(key))
    by_token.caught_up(version)
    by_key.caught_up(version)
    ticket = _ticket(url, game_id, old)
    polled: list[requests.Response] = []
    poll = threading.Thread(
        target=lambda: polled.append(
            requests.get(f"{url}/v1/games/{game_id}", params={"wait": 8, "after": version}, headers=_auth(old), timeout=20)
        )
    )
    poll.start()
    time.sleep(0.3)  # parked

    fresh = requests.post(f"{url}/v1/games/{game_id}/seats/0/token", headers=_auth(key), timeout=10)
    assert fresh.status_code == 201, fresh.text
    new = fresh.json()["token"]
    assert by_token.ended.wait(5), "the stream of a reissued token went on"
    assert by_token.events[-1]["type"] == "SeatTokenReissued"
    poll.join(10)
    assert (polled[0].status_code, problem(polled[0])["code"]) == (401, "unauthenticated")
    refused = requests.get(f"{url}/v1/games/{game_id}/events/stream", params={"ticket": ticket}, timeout=10)
    assert (refused.status_code, problem(refused)["code"]) == (401, "invalid_ticket")

    # The player key still holds the seat: its stream goes on, the seat's facts included.
    tokens = {0: new, 1: guest["token"]}
    by_key.caught_up(_act(url, game_id, tokens))
    assert not by_key.ended.is_set()
    # The key is replaced: the stream it opened ends before it shows anything more.
    rotated = requests.post(f"{url}/v1/players/me/key", headers=_auth(key), timeout=10)
    assert rotated.status_code == 201
    time.sleep(RECHECK_S + 0.2)
    shown = len(by_key.events)
    _act(url, game_id, tokens)
    assert by_key.ended.wait(5), "the stream of a replaced player key went on"
    assert len(by_key.events) == shown


def test_a_stream_or_long_poll_cannot_start_beyond_the_games_last_event(server: LiveServer) -> None:
    url = server.url
    game_id = _abluxxen(url)
    ada = _join(url, game_id, name="ada" + secrets.token_hex(3))
    head = ada["view"]["version"]
    stream = f"{url}/v1/games/{game_id}/events/stream"
    attempts = [
        requests.get(stream, params={"after": head + 1}, timeout=10),
        requests.get(stream, headers={"Last-Event-ID": str(head + 5)}, timeout=10),
        requests.get(stream, params={"after": head + 1}, headers=_auth(ada["token"]), timeout=10),
        requests.get(stream, params={"after": head + 1, "ticket": _ticket(url, game_id, ada["token"])}, timeout=10),
    ]
    for reply in attempts:
        body = problem(reply)
        assert (reply.status_code, body["code"], body["details"]["head"]) == (422, "version_out_of_range", head)
    with requests.get(stream, params={"after": head}, stream=True, timeout=10) as ok:
        assert ok.status_code == 200
    # A long poll after a version the game does not have would only ever time out.
    view = f"{url}/v1/games/{game_id}"
    for params in ({"after": head + 1, "wait": 5}, {"after": head + 1}):
        reply = requests.get(view, params=params, headers=_auth(ada["token"]), timeout=10)
        body = problem(reply)
        assert (reply.status_code, body["code"], body["details"]["head"]) == (422, "version_out_of_range", head)
    polled = requests.get(view, params={"after": head, "wait": 0.2}, timeout=10)
    assert (polled.status_code, polled.json()["version"]) == (200, head)


def test_a_player_keys_ticket_and_stream_end_with_its_key_or_its_seat(server: LiveServer) -> None:
    url = server.url
    key = requests.post(f"{url}/v1/players", json={"name": "lu" + secrets.token_hex(3)}, timeout=10).json()["player_key"]
    game_id = _abluxxen(url)
    joined = _join(url, game_id, key=key)
    ticket = _ticket(url, game_id, key)
    rotated = requests.post(f"{url}/v1/players/me/key", headers=_auth(key), timeout=10)
    assert rotated.status_code == 201
    time.sleep(RECHECK_S + 0.2)
    refused = requests.get(f"{url}/v1/games/{game_id}/events/stream", params={"ticket": ticket}, timeout=10)
    assert (refused.status_code, problem(refused)["code"]) == (401, "invalid_ticket")
    # The new key's stream ends right after its account leaves the seat.
    new = rotated.json()["player_key"]
    stream = Listener(f"{url}/v1/games/{game_id}/events/stream", headers=_auth(new))
    stream.caught_up(joined["view"]["version"])
    assert requests.delete(f"{url}/v1/games/{game_id}/seats/0", headers=_auth(new), timeout=10).status_code == 200
    assert stream.ended.wait(5) and stream.events[-1]["type"] == "SeatLeft"


def test_a_player_stream_and_its_tickets_end_with_the_key_that_opened_them(server: LiveServer) -> None:
    url = server.url
    name = "nia" + secrets.token_hex(3)
    key = requests.post(f"{url}/v1/players", json={"name": name}, timeout=10).json()["player_key"]
    notices = AccountKeys.of(server.env["TABLETOP_KEY_PREFIX"], name_key(name)).notices
    store = redis.Redis.from_url(server.env["TABLETOP_REDIS_URL"])

    def notice(n: int) -> None:  # where the projector writes them
        store.xadd(notices, {"n": json.dumps({"kind": "waiting", "n": n})}, id=f"{n}-0")

    ticket = requests.post(f"{url}/v1/players/me/stream-tickets", headers=_auth(key), timeout=10).json()["ticket"]
    stream = Listener(f"{url}/v1/players/me/stream", headers=_auth(key))
    notice(1)
    deadline = time.monotonic() + 10
    while not stream.events:
        assert time.monotonic() < deadline and not stream.ended.is_set()
        time.sleep(0.02)
    assert requests.post(f"{url}/v1/players/me/key", headers=_auth(key), timeout=10).status_code == 201
    time.sleep(RECHECK_S + 0.2)
    notice(2)
    assert stream.ended.wait(5), "the player stream of a replaced key went on"
    assert [e["n"] for e in stream.events] == [1]
    refused = requests.get(f"{url}/v1/players/me/stream", params={"ticket": ticket}, timeout=10)
    assert (refused.status_code, problem(refused)["code"]) == (401, "invalid_ticket")
    store.close()
