"""Stream tickets (issue 13): a browser's EventSource opens a seat's stream without its token.

Attacks: replaying a used ticket, using an expired one, carrying a ticket to another
game, presenting a ticket as a bearer token anywhere else, telling the refusals apart,
flooding Redis with tickets. And the point of it all: a stream opened with a seat's
ticket shows that seat's private facts -- exactly what its token shows -- and nothing
of the other seats'.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import requests
from support.http_games import HttpApi, create_game, seat_everyone
from support.live_server import LiveServer
from support.redis import TestRedis
from support.security_games import key_prefix_of, problem
from support.security_servers import ADMIN_TOKEN, own_server
from support.sse import SseEvent, events

TICKETS = "/v1/games/{}/stream-tickets"


@pytest.fixture(scope="module")
def ticket_server(redis_target: TestRedis) -> Iterator[LiveServer]:
    """A server of this module's own: it creates dozens of games from one address, more
    than the shared server's creation limit allows (every other limit as shipped)."""
    with own_server(
        redis_target, create_limit_per_minute=0, sse_max_s=3.0, sse_heartbeat_s=0.5
    ) as server:
        yield server


@pytest.fixture
def api(ticket_server: LiveServer) -> Iterator[HttpApi]:
    with requests.Session() as session:
        yield HttpApi(session, ticket_server.url)


STREAM = "/v1/games/{}/events/stream"


def _game(api: HttpApi, players: int = 2) -> tuple[str, list[str]]:
    """A running Abluxxen game (each seat's hand is private to it) and its tokens."""
    game_id = create_game(api, "abluxxen", players)
    return game_id, seat_everyone(api, game_id, players)


def _ticket(api: HttpApi, game_id: str, token: str) -> str:
    reply = api.session.post(
        api.base_url + TICKETS.format(game_id), headers=_bearer(token), timeout=10
    )
    assert reply.status_code == 201, reply.text
    return str(reply.json()["ticket"])


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _head(api: HttpApi, game_id: str) -> int:
    return int(
        api.session.get(f"{api.base_url}/v1/games/{game_id}/events", timeout=10).json()["head"]
    )


def _read_stream(api: HttpApi, game_id: str, until: int, **kwargs: Any) -> list[SseEvent]:
    """The stream's events up to version ``until`` (``params``/``headers`` as given)."""
    with api.session.get(
        api.base_url + STREAM.format(game_id), stream=True, timeout=10, **kwargs
    ) as reply:
        assert reply.status_code == 200, reply.text
        got: list[SseEvent] = []
        for event in events(reply.iter_content(chunk_size=None)):
            got.append(event)
            if event.id >= until:
                break
    return got


def _open(api: HttpApi, game_id: str, ticket: str, **params: Any) -> requests.Response:
    """Open the stream with ``ticket``, reading only the status and headers (and the body
    of a refusal)."""
    reply = api.session.get(
        api.base_url + STREAM.format(game_id),
        params={"ticket": ticket, **params},
        stream=True,
        timeout=10,
    )
    if reply.status_code != 200:
        _ = reply.content
    reply.close()
    return reply


def test_a_ticket_is_issued_for_a_seat_or_the_admin_never_without_a_token(api: HttpApi) -> None:
    game_id, tokens = _game(api)
    url = api.base_url + TICKETS.format(game_id)
    seat1 = api.session.post(url, headers=_bearer(tokens[1]), timeout=10)
    assert seat1.status_code == 201 and seat1.headers["Cache-Control"] == "no-store"
    body = seat1.json()
    assert set(body) == {"ticket", "seat", "expires_in"} and (body["seat"], body["expires_in"]) == (
        1,
        30,
    )
    assert len(body["ticket"]) >= 22 and body["ticket"] not in tokens  # >= 128 bits, URL-safe
    assert (
        body["ticket"]
        != api.session.post(url, headers=_bearer(tokens[1]), timeout=10).json()["ticket"]
    )
    admin = api.session.post(url, headers=_bearer(ADMIN_TOKEN), timeout=10)
    assert admin.status_code == 201 and admin.json()["seat"] is None
    anonymous = api.session.post(url, timeout=10)
    assert anonymous.status_code == 401 and problem(anonymous)["code"] == "unauthenticated"
    made_up = api.session.post(url, headers=_bearer(tokens[0][:-4] + "AAAA"), timeout=10)
    assert made_up.status_code == 401 and problem(made_up)["code"] == "unauthenticated"
    other_game, _ = _game(api)
    elsewhere = api.session.post(
        api.base_url + TICKETS.format(other_game), headers=_bearer(tokens[0]), timeout=10
    )
    assert elsewhere.status_code == 401


def test_a_ticket_stream_shows_its_seats_private_facts_and_nothing_of_the_others(
    api: HttpApi,
) -> None:
    game_id, tokens = _game(api, players=3)
    head = _head(api, game_id)
    for seat in range(3):
        ticketed = _read_stream(
            api, game_id, head, params={"ticket": _ticket(api, game_id, tokens[seat])}
        )
        with_token = _read_stream(api, game_id, head, headers=_bearer(tokens[seat]))
        assert [e.data for e in ticketed] == [e.data for e in with_token]  # the same viewer
        hands = [e.data for e in ticketed if e.type == "HandDealt"]
        assert len(hands) == 3
        for hand in hands:
            mine = hand["data"]["seat"] == seat
            assert (hand["private"] is not None) == mine, (seat, hand)
            if not mine:
                assert hand["redacted"] is True
        assert all(
            e.data["private"] is None for e in ticketed if seat not in e.data["visible_to"]
        ), "nothing private of another seat"
    spectator = _read_stream(api, game_id, head)
    assert all(e.data["private"] is None for e in spectator)


def test_a_used_ticket_is_refused(api: HttpApi) -> None:
    game_id, tokens = _game(api)
    ticket = _ticket(api, game_id, tokens[0])
    assert _open(api, game_id, ticket).status_code == 200
    again = _open(api, game_id, ticket)
    assert again.status_code == 401
    assert problem_of(again)["code"] == "invalid_ticket"


def test_two_opens_racing_with_one_ticket_get_one_stream(api: HttpApi) -> None:
    from concurrent.futures import ThreadPoolExecutor

    game_id, tokens = _game(api)
    for _ in range(5):
        ticket = _ticket(api, game_id, tokens[0])

        def open_once(_: int, ticket: str = ticket) -> int:
            with requests.Session() as session:
                return _open(HttpApi(session, api.base_url), game_id, ticket).status_code

        with ThreadPoolExecutor(4) as pool:
            statuses = sorted(pool.map(open_once, range(4)))
        assert statuses == [200, 401, 401, 401]


def test_an_expired_ticket_is_refused(start_server: Any) -> None:
    with start_server(stream_ticket_ttl_s=1) as server, requests.Session() as session:
        api = HttpApi(session, server.url)
        game_id, tokens = _game(api)
        reply = session.post(
            api.base_url + TICKETS.format(game_id), headers=_bearer(tokens[0]), timeout=10
        )
        assert reply.json()["expires_in"] == 1
        time.sleep(2.5)  # Redis expires the key after 1 s (not a timed assert: a wait)
        refused = _open(api, game_id, reply.json()["ticket"])
        assert refused.status_code == 401 and problem_of(refused)["code"] == "invalid_ticket"
        fresh = _ticket(api, game_id, tokens[0])
        assert _open(api, game_id, fresh).status_code == 200


def test_a_ticket_for_one_game_is_refused_on_another(api: HttpApi) -> None:
    game_a, tokens_a = _game(api)
    game_b, _ = _game(api)
    ticket = _ticket(api, game_a, tokens_a[0])
    refused = _open(api, game_b, ticket)
    assert refused.status_code == 401 and problem_of(refused)["code"] == "invalid_ticket"
    assert _open(api, game_a, ticket).status_code == 200  # still good where it belongs


def test_every_refused_ticket_gets_the_same_answer(api: HttpApi) -> None:
    game_id, tokens = _game(api)
    other, other_tokens = _game(api)
    used = _ticket(api, game_id, tokens[0])
    assert _open(api, game_id, used).status_code == 200
    cases = {
        "used": used,
        "unknown": "A" * 43,
        "other game": _ticket(api, other, other_tokens[0]),
        "a seat token": tokens[0],
    }
    answers = set()
    for label, ticket in cases.items():
        reply = _open(api, game_id, ticket)
        assert reply.status_code == 401, label
        body = problem_of(reply)
        answers.add((body["code"], body["detail"], reply.headers.get("WWW-Authenticate")))
    assert len(answers) == 1 and next(iter(answers))[0] == "invalid_ticket"


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("GET", "/v1/games/{}", None),
        ("GET", "/v1/games/{}/legal", None),
        ("GET", "/v1/games/{}/events", None),
        ("POST", "/v1/games/{}/commands", {"command": {"kind": "pass"}, "expected_version": 1}),
        ("POST", "/v1/games/{}/stream-tickets", None),
        ("GET", "/v1/games/{}/events/stream", None),
    ],
)
def test_a_ticket_is_never_accepted_as_a_bearer_token(
    api: HttpApi, method: str, path: str, body: Any
) -> None:
    game_id, tokens = _game(api)
    ticket = _ticket(api, game_id, tokens[0])
    reply = api.session.request(
        method, api.base_url + path.format(game_id), json=body, headers=_bearer(ticket), timeout=10
    )
    assert reply.status_code == 401 and problem_of(reply)["code"] == "unauthenticated"
    assert _open(api, game_id, ticket).status_code == 200  # the ticket itself was not spent


def test_a_ticket_and_a_token_together_are_refused(api: HttpApi) -> None:
    game_id, tokens = _game(api)
    ticket = _ticket(api, game_id, tokens[0])
    reply = api.session.get(
        api.base_url + STREAM.format(game_id),
        params={"ticket": ticket},
        headers=_bearer(tokens[1]),
        timeout=10,
    )
    assert reply.status_code == 400 and problem(reply)["code"] == "invalid_parameter"


def test_only_a_hash_of_the_ticket_is_stored_under_the_servers_prefix_and_it_expires(
    api: HttpApi, ticket_server: LiveServer
) -> None:
    game_id, tokens = _game(api)
    ticket = _ticket(api, game_id, tokens[0])
    client = redis.Redis.from_url(ticket_server.env["TABLETOP_REDIS_URL"])
    try:
        prefix = key_prefix_of(ticket_server)
        digest = hashlib.sha256(ticket.encode()).hexdigest()
        key = f"{prefix}ticket:{{{game_id}}}:{digest}"
        assert client.exists(key) and 0 < client.ttl(key) <= 30
        found = [k for k in client.scan_iter(match=f"{prefix}ticket:*", count=1000)]
        assert all(
            ticket.encode() not in k and ticket.encode() not in (client.get(k) or b"")
            for k in found
        )
        assert _open(api, game_id, ticket).status_code == 200
        assert not client.exists(key), "consumed on open"
    finally:
        client.close()


def test_issuing_tickets_is_capped_per_client(start_server: Any) -> None:
    with start_server(stream_ticket_limit_per_minute=3) as server, requests.Session() as session:
        api = HttpApi(session, server.url)
        game_id, tokens = _game(api)
        url = api.base_url + TICKETS.format(game_id)
        statuses = [session.post(url, headers=_bearer(tokens[i % 2]), timeout=10) for i in range(5)]
        assert [r.status_code for r in statuses] == [201, 201, 201, 429, 429]
        refused = statuses[3]
        assert (
            problem(refused)["code"] == "ticket_rate_limited"
            and int(refused.headers["Retry-After"]) >= 1
        )


def problem_of(reply: requests.Response) -> dict[str, Any]:
    """The problem body of a response opened with ``stream=True`` and closed."""
    return problem(reply)
