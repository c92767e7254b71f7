"""CORS (issue 14) on a live server: which pages of other origins may call the API.

Real HTTP against gunicorn: preflights from an allowed origin are answered with what a
browser client needs; a disallowed origin and the default configuration get no CORS
header at all; the headers a page must read (``Location``, ``ETag``, ``Retry-After``)
are exposed on successes and on problem answers alike, streams included.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests
from support.http_games import HttpApi, create_game, seat_everyone
from support.live_server import LiveServer
from support.redis import TestRedis
from support.security_games import problem
from support.security_servers import own_server

ALLOWED = "https://play.example"
OTHER_ALLOWED = "http://localhost:5173"
EVIL = "https://evil.example"
NEEDED_REQUEST_HEADERS = {
    "authorization",
    "content-type",
    "if-match",
    "if-none-match",
    "idempotency-key",
    "last-event-id",
}


@pytest.fixture(scope="module")
def cors_server(redis_target: TestRedis) -> Iterator[LiveServer]:
    with own_server(
        redis_target,
        cors_origins=f"{ALLOWED}, {OTHER_ALLOWED}",
        create_limit_per_minute=0,
        sse_max_s=2.0,
        sse_heartbeat_s=0.5,
    ) as server:
        yield server


@pytest.fixture
def api(cors_server: LiveServer) -> Iterator[HttpApi]:
    with requests.Session() as session:
        yield HttpApi(session, cors_server.url)


def cors_headers(reply: requests.Response) -> dict[str, str]:
    return {
        k.lower(): v for k, v in reply.headers.items() if k.lower().startswith("access-control-")
    }


def listed(value: str) -> set[str]:
    return {part.strip().lower() for part in value.split(",") if part.strip()}


def preflight(
    api: HttpApi, path: str, origin: str, method: str = "POST", headers: str = ""
) -> requests.Response:
    return api.session.options(
        api.base_url + path,
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": headers
            or "authorization, content-type, if-match, idempotency-key",
        },
        timeout=10,
    )


def assert_exposes(reply: requests.Response, origin: str, *needed: str) -> None:
    got = cors_headers(reply)
    assert got["access-control-allow-origin"] == origin, reply.headers
    assert listed(got["access-control-expose-headers"]) >= {h.lower() for h in needed}
    assert "access-control-allow-credentials" not in got
    assert "origin" in listed(reply.headers["Vary"])
    for name in needed:
        assert name in reply.headers, (name, reply.status_code, reply.headers)


@pytest.mark.parametrize("origin", [ALLOWED, OTHER_ALLOWED])
@pytest.mark.parametrize(
    ("path", "method"),
    [
        ("/v1/games", "POST"),
        ("/v1/games/abc/commands", "POST"),
        ("/v1/games/abc/seats/0", "DELETE"),
    ],
)
def test_a_preflight_from_an_allowed_origin_gets_what_a_client_needs(
    api: HttpApi, origin: str, path: str, method: str
) -> None:
    reply = preflight(api, path, origin, method, ", ".join(sorted(NEEDED_REQUEST_HEADERS)))
    assert reply.status_code == 204 and reply.content == b""
    got = cors_headers(reply)
    assert got["access-control-allow-origin"] == origin
    assert method in {m.upper() for m in listed(got["access-control-allow-methods"])}
    assert listed(got["access-control-allow-headers"]) >= NEEDED_REQUEST_HEADERS
    assert int(got["access-control-max-age"]) > 0
    assert "access-control-allow-credentials" not in got
    assert "origin" in listed(reply.headers["Vary"])


@pytest.mark.parametrize(
    "origin", [EVIL, "https://play.example.evil.example", "http://play.example", "null"]
)
def test_a_disallowed_origin_gets_no_cors_header(api: HttpApi, origin: str) -> None:
    refused = preflight(api, "/v1/games", origin)
    assert cors_headers(refused) == {}
    game = api.session.post(
        api.base_url + "/v1/games",
        json={"game": "abluxxen", "players": 2},
        headers={"Origin": origin},
        timeout=10,
    )
    assert game.status_code == 201 and cors_headers(game) == {}
    assert "origin" in listed(game.headers["Vary"])  # a cache must not mix origins
    missing = api.session.get(
        api.base_url + "/v1/games/nope", headers={"Origin": origin}, timeout=10
    )
    assert missing.status_code == 404 and cors_headers(missing) == {}


def test_no_origin_header_gets_no_cors_header(api: HttpApi) -> None:
    reply = api.session.get(api.base_url + "/v1/catalogue", timeout=10)
    assert reply.status_code == 200 and cors_headers(reply) == {}


def test_a_201_exposes_its_location(api: HttpApi) -> None:
    created = api.session.post(
        api.base_url + "/v1/games",
        json={"game": "schlitzohr", "players": 2},
        headers={"Origin": ALLOWED},
        timeout=10,
    )
    assert created.status_code == 201
    assert_exposes(created, ALLOWED, "Location")
    game_id = created.json()["game_id"]
    joined = api.session.post(
        f"{api.base_url}/v1/games/{game_id}/seats",
        json={"name": "ada"},
        headers={"Origin": ALLOWED},
        timeout=10,
    )
    assert joined.status_code == 201
    assert_exposes(joined, ALLOWED, "Location")


def test_etag_is_exposed_on_views_on_304_and_on_a_stale_command(api: HttpApi) -> None:
    game_id = create_game(api, "abluxxen", 2)
    tokens = seat_everyone(api, game_id, 2)
    headers = {"Origin": ALLOWED, "Authorization": f"Bearer {tokens[0]}"}
    view = api.session.get(f"{api.base_url}/v1/games/{game_id}", headers=headers, timeout=10)
    assert view.status_code == 200
    assert_exposes(view, ALLOWED, "ETag")
    unchanged = api.session.get(
        f"{api.base_url}/v1/games/{game_id}",
        headers={**headers, "If-None-Match": view.headers["ETag"]},
        timeout=10,
    )
    assert unchanged.status_code == 304
    assert_exposes(unchanged, ALLOWED, "ETag")
    # A stale If-Match: this API answers 409 version_conflict (not 412), with the current
    # version in the problem body -- which the page can read.
    stale = api.session.post(
        f"{api.base_url}/v1/games/{game_id}/commands",
        json={"command": {"kind": "pass"}},
        headers={**headers, "If-Match": '"1"'},
        timeout=10,
    )
    assert stale.status_code == 409
    assert_exposes(stale, ALLOWED)
    body = problem(stale)
    assert body["code"] == "version_conflict" and body["current_version"] == int(
        view.headers["ETag"].strip('"')
    )


def test_problem_answers_and_streams_carry_the_cors_headers(api: HttpApi) -> None:
    missing = api.session.get(
        api.base_url + "/v1/games/nope", headers={"Origin": ALLOWED}, timeout=10
    )
    assert missing.status_code == 404 and problem(missing)["code"] == "game_not_found"
    assert_exposes(missing, ALLOWED)
    unauthenticated = api.session.post(
        api.base_url + "/v1/games/nope/stream-tickets",
        headers={"Origin": ALLOWED, "Authorization": "Basic x"},
        timeout=10,
    )
    assert unauthenticated.status_code == 401
    assert_exposes(unauthenticated, ALLOWED, "WWW-Authenticate")
    bad_json = api.session.post(
        api.base_url + "/v1/games",
        data=b"{",
        headers={"Origin": ALLOWED, "Content-Type": "application/json"},
        timeout=10,
    )
    assert bad_json.status_code == 400 and problem(bad_json)["code"] == "malformed_json"
    assert_exposes(bad_json, ALLOWED)
    game_id = create_game(api, "abluxxen", 2)
    with api.session.get(
        f"{api.base_url}/v1/games/{game_id}/events/stream",
        headers={"Origin": ALLOWED},
        stream=True,
        timeout=10,
    ) as stream:
        assert stream.status_code == 200
        assert_exposes(stream, ALLOWED)


def test_a_429_exposes_retry_after_and_preflights_are_still_answered(
    start_server: Any,
) -> None:
    with (
        start_server(cors_origins=ALLOWED, rate_limit_per_minute=3) as server,
        requests.Session() as session,
    ):
        api = HttpApi(session, server.url)
        replies = [
            session.get(server.url + "/v1/catalogue", headers={"Origin": ALLOWED}, timeout=10)
            for _ in range(6)
        ]
        limited = [r for r in replies if r.status_code == 429]
        assert limited, [r.status_code for r in replies]
        assert problem(limited[0])["code"] == "rate_limited"
        assert_exposes(limited[0], ALLOWED, "Retry-After")
        # Over its limit, the client's preflight is still answered, so the browser lets
        # the page see the real request's 429 and its Retry-After.
        assert preflight(api, "/v1/games", ALLOWED).status_code == 204


def test_by_default_no_answer_carries_a_cors_header(secure_server: LiveServer) -> None:
    with requests.Session() as session:
        api = HttpApi(session, secure_server.url)
        replies = [
            preflight(api, "/v1/games", ALLOWED),
            session.get(
                secure_server.url + "/v1/catalogue", headers={"Origin": ALLOWED}, timeout=10
            ),
            session.get(
                secure_server.url + "/v1/games/nope", headers={"Origin": ALLOWED}, timeout=10
            ),
            session.post(
                secure_server.url + "/v1/games",
                json={"game": "abluxxen", "players": 2},
                headers={"Origin": ALLOWED},
                timeout=10,
            ),
        ]
        for reply in replies:
            assert cors_headers(reply) == {}, (reply.status_code, reply.headers)
            assert "origin" not in listed(reply.headers.get("Vary", ""))
