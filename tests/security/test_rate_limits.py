"""Rate limits hold (issue 11, finding 4 and 6): buckets are keyed by verified identity
or the client address, never by unverified header text, and the expensive operations
have tighter limits of their own.

Repros: ``Authorization: Bearer x<N>`` with a new N per request created 2,000 games in
10 s against a 600/min limit; the same token re-spelled (``bearer``, two spaces) got a
fresh bucket each time.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import requests
from support.http_games import HttpApi, create_game, seat_everyone
from support.live_server import LiveServer
from support.security_games import finished_game, key_prefix_of, problem

ServerFactory = Callable[..., AbstractContextManager[LiveServer]]

LIMIT = 12


def _statuses(replies: list[requests.Response]) -> list[int]:
    return [r.status_code for r in replies]


def _refused(reply: requests.Response, code: str) -> None:
    body = problem(reply)
    assert (reply.status_code, body["code"]) == (429, code), body
    assert 1 <= int(reply.headers["Retry-After"]) <= 120


def test_a_flood_of_made_up_tokens_shares_one_address_bucket(start_server: ServerFactory) -> None:
    with start_server(rate_limit_per_minute=LIMIT, create_limit_per_minute=0) as server:
        session = requests.Session()
        replies = [
            session.post(
                server.url + "/v1/games",
                json={"game": "abluxxen", "players": 2},
                headers={"Authorization": f"Bearer x{n}"},
            )
            for n in range(2 * LIMIT)
        ]
        created = sum(r.status_code == 201 for r in replies)
        assert 1 <= created <= LIMIT, _statuses(replies)
        assert set(_statuses(replies)) == {201, 429}
        _refused(replies[-1], "rate_limited")
        # The address itself is out of budget now: no token, a made-up one, the same.
        _refused(session.get(server.url + "/v1/catalogue"), "rate_limited")


def test_bad_tokens_shaped_like_real_ones_are_counted_against_the_address(
    start_server: ServerFactory,
) -> None:
    with start_server(rate_limit_per_minute=LIMIT) as server:
        api = HttpApi(requests.Session(), server.url)
        game_id = create_game(api, "abluxxen", 2)
        replies = [
            api.session.get(
                f"{server.url}/v1/games/{game_id}",
                headers={"Authorization": f"Bearer {game_id}.0.{secrets.token_urlsafe(32)}"},
            )
            for _ in range(2 * LIMIT)
        ]
        statuses = _statuses(replies)
        assert set(statuses) == {401, 429} and statuses.count(401) < LIMIT, statuses
        _refused(replies[-1], "rate_limited")


def test_a_re_spelled_token_gets_no_fresh_bucket(start_server: ServerFactory) -> None:
    with start_server(rate_limit_per_minute=LIMIT) as server:
        api = HttpApi(requests.Session(), server.url)
        game_id = create_game(api, "abluxxen", 2)
        token = seat_everyone(api, game_id, 2)[0]
        spellings = [
            f"Bearer {token}",
            f"bearer {token}",
            f"Bearer  {token}",
            f"BEARER {token}",
            f"Bearer {token}\t",
        ]
        replies = [
            api.session.get(
                f"{server.url}/v1/games/{game_id}",
                headers={"Authorization": spellings[n % len(spellings)]},
            )
            for n in range(2 * LIMIT)
        ]
        statuses = _statuses(replies)
        assert set(statuses) == {200, 429} and 1 <= statuses.count(200) <= LIMIT, statuses
        _refused(replies[-1], "rate_limited")
        # The seat's bucket is its own: the address (3 requests so far) still has room.
        assert api.session.get(f"{server.url}/v1/games/{game_id}").status_code == 200


def test_creating_games_has_a_tighter_limit_and_strong_seats_weigh_more(
    start_server: ServerFactory,
) -> None:
    with start_server(create_limit_per_minute=10, strong_seat_cost=4) as server:
        session = requests.Session()
        strong = {"game": "abluxxen", "players": 2, "bots": {"0": "strong", "1": "strong"}}
        first = session.post(server.url + "/v1/games", json=strong)
        assert first.status_code == 201, first.text  # 1 + 2 * 4 = 9 of 10
        _refused(session.post(server.url + "/v1/games", json=strong), "create_rate_limited")
        plain = {"game": "abluxxen", "players": 2}
        assert session.post(server.url + "/v1/games", json=plain).status_code == 201  # 10 of 10
        _refused(session.post(server.url + "/v1/games", json=plain), "create_rate_limited")
        # Only creation is spent: reading goes on.
        assert session.get(server.url + "/v1/catalogue").status_code == 200


def test_replays_and_exports_share_a_tighter_limit(start_server: ServerFactory) -> None:
    with start_server(replay_limit_per_minute=3) as server:
        api = HttpApi(requests.Session(), server.url)
        game_id = create_game(api, "abluxxen", 2)
        base = f"{server.url}/v1/games/{game_id}"
        assert _statuses([api.session.get(base + "?at=1"), api.session.get(base + "?at=1")]) == [200, 200]
        assert api.session.get(base + "/export").status_code == 200
        _refused(api.session.get(base + "?at=1"), "replay_rate_limited")
        _refused(api.session.get(base + "/export"), "replay_rate_limited")
        assert api.session.get(base).status_code == 200  # the current view is no replay


def test_computing_a_verification_has_a_tighter_limit(
    start_server: ServerFactory, redis_target: Any
) -> None:
    with start_server(verify_limit_per_minute=2) as server:
        api = HttpApi(requests.Session(), server.url)
        game_id = finished_game(api)
        url = f"{server.url}/v1/games/{game_id}/verification"
        stored = f"{key_prefix_of(server)}game:{{{game_id}}}:verification"
        client = redis_target.client()
        try:
            for _ in range(2):  # computed twice: the kept report is dropped in between
                assert api.session.get(url).status_code == 200
                assert client.delete(stored) == 1
            _refused(api.session.get(url), "verify_rate_limited")
        finally:
            client.close()
