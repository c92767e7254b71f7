"""``service.http.direct``: the play requests it serves get the very answers Flask gives.

Every request below is sent twice to the same app: once as it arrives (served by
``DirectPlay`` where it applies) and once with the direct path switched off (Flask's
own dispatch); status, headers and body must be identical. The rest of the suite talks
to the app as it arrives too, so every play test runs on the direct path.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from flask import Flask
from support.http_games import FlaskApi, create_game, seat_everyone
from support.http_setup import app_settings, make_app
from support.redis import TestRedis

from service.http import direct
from service.http.metrics import REQUESTS, ROUTE_KEY

pytest_plugins = ("support.http_app",)  # fixtures: http_services, http_app, api

JSON = "application/json"


class Both:
    """Sends each request through the app as it is and with its direct path off."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.client = app.test_client()

    def send(self, method: str, path: str, direct_on: bool, **kwargs: Any) -> tuple[int, list[Any], bytes]:
        saved = self.app.direct  # type: ignore[attr-defined]
        self.app.direct = saved if direct_on else None  # type: ignore[attr-defined]
        try:
            response = self.client.open(path, method=method, **kwargs)
        finally:
            self.app.direct = saved  # type: ignore[attr-defined]
        return response.status_code, list(response.headers.items()), response.data

    def same(self, method: str, path: str, **kwargs: Any) -> tuple[int, list[Any], bytes]:
        """Both answers, asserted equal; the answer."""
        served = self.send(method, path, True, **kwargs)
        flask = self.send(method, path, False, **kwargs)
        assert served == flask, f"{method} {path}: direct {served!r} != Flask {flask!r}"
        return served


@pytest.fixture
def both(http_app: Flask) -> Both:
    return Both(http_app)


@pytest.fixture
def game(both: Both) -> tuple[str, list[str]]:
    api = FlaskApi(both.client)
    game_id = create_game(api, "schlitzohr", 2)
    return game_id, seat_everyone(api, game_id, 2)


def bearer(token: str, **more: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **more}


def test_reads_answer_the_same(both: Both, game: tuple[str, list[str]]) -> None:
    game_id, tokens = game
    for path in (f"/v1/games/{game_id}", f"/v1/games/{game_id}/legal",
                 f"/v1/games/{game_id}/legal?form=compact", f"/v1/games/{game_id}/legal?form=full"):
        status, headers, body = both.same("GET", path, headers=bearer(tokens[0]))
        assert status == 200 and dict(headers)["ETag"] and body
        assert both.same("GET", path)[0] == 200  # a spectator
        version = dict(headers)["ETag"]
        assert both.same("GET", path, headers=bearer(tokens[0], **{"If-None-Match": version}))[0] == 304
        assert both.same("GET", path, headers=bearer(tokens[0], **{"If-None-Match": '"999"'}))[0] == 200
        assert both.same("GET", path, headers=bearer(tokens[1][:-2] + "xx"))[0] == 401
        assert both.same("GET", path, headers={"Authorization": "Basic abc"})[0] == 401


def test_missing_and_malformed_games_answer_the_same(both: Both, game: tuple[str, list[str]]) -> None:
    _, tokens = game
    for game_id in ("AAAAAAAAAAAA", "x" * 65):
        for method, suffix in (("GET", ""), ("GET", "/legal"), ("POST", "/commands")):
            body = {"command": {"kind": "roll"}} if method == "POST" else None
            status, _, _ = both.same(method, f"/v1/games/{game_id}{suffix}", json=body,
                                     headers=bearer(tokens[0], **{"If-Match": '"1"'}))
            assert status in (401, 404)


def test_refused_commands_answer_the_same(both: Both, game: tuple[str, list[str]]) -> None:
    game_id, tokens = game
    path = f"/v1/games/{game_id}/commands"
    version = dict(both.same("GET", f"/v1/games/{game_id}", headers=bearer(tokens[0]))[1])["ETag"]
    cases: list[tuple[dict[str, Any], int]] = [
        ({"json": {"command": {"kind": "roll"}}, "headers": bearer(tokens[0])}, 428),  # no version
        ({"json": {"command": {"kind": "roll"}}, "headers": bearer(tokens[0], **{"If-Match": '"1"'})}, 409),
        ({"json": {"command": {"kind": "nonsense"}}, "headers": bearer(tokens[0], **{"If-Match": version})}, 422),
        ({"json": {"command": {"kind": "roll"}, "extra": 1}, "headers": bearer(tokens[0], **{"If-Match": version})}, 422),
        ({"data": b"{not json", "content_type": JSON, "headers": bearer(tokens[0], **{"If-Match": version})}, 400),
        ({"data": b'{"command":{"kind":"roll"}}', "content_type": "text/plain",
          "headers": bearer(tokens[0], **{"If-Match": version})}, 415),
        ({"json": {"command": {"kind": "roll"}}, "headers": {"If-Match": version}}, 401),
        ({"json": {"command": {"kind": "roll"}}, "headers": bearer(tokens[0], **{"If-Match": "12"})}, 400),
        ({"json": {"command": {"kind": "roll"}}, "headers": bearer(tokens[0], **{"If-Match": version, "Idempotency-Key": ""})}, 400),
        ({"data": b"x" * 70_000, "content_type": JSON, "headers": bearer(tokens[0], **{"If-Match": version})}, 413),
    ]
    for kwargs, expected in cases:
        status, headers, body = both.same("POST", path, **kwargs)
        assert status == expected, (kwargs, status, body)
        assert dict(headers)["Content-Type"] == "application/problem+json"


def test_a_command_and_its_retry_answer_the_same_bytes(both: Both, game: tuple[str, list[str]]) -> None:
    """The first call goes the direct way, its retry (same idempotency key) Flask's way:
    the retry's answer is rebuilt from the stored events, byte for byte the first's."""
    game_id, tokens = game
    view = both.client.get(f"/v1/games/{game_id}", headers=bearer(tokens[0])).get_json()
    (seat_text, kinds), = view["to_act"].items()
    seat = int(seat_text)
    legal = both.client.get(f"/v1/games/{game_id}/legal", headers=bearer(tokens[seat])).get_json()
    command = legal["commands"][0]
    headers = bearer(tokens[seat], **{"If-Match": f'"{view["version"]}"', "Idempotency-Key": "k1"})
    first = both.send("POST", f"/v1/games/{game_id}/commands", True, json={"command": command}, headers=headers)
    retry = both.send("POST", f"/v1/games/{game_id}/commands", False, json={"command": command}, headers=headers)
    assert first[0] == 200 and first == retry


def test_what_it_is_not_sure_of_goes_to_flask(http_app: Flask) -> None:
    served = http_app.direct  # type: ignore[attr-defined]
    assert served is not None

    def environ(method: str, path: str, query: str = "", **more: str) -> dict[str, Any]:
        return {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query,
                "CONTENT_TYPE": JSON, **more}

    game = "/v1/games/AAAAAAAAAAAA"
    assert served._route(environ("GET", game)) is not None
    assert served._route(environ("GET", game + "/legal", "form=compact")) is not None
    assert served._route(environ("POST", game + "/commands")) is not None
    for declined in (
        environ("HEAD", game), environ("OPTIONS", game + "/commands"), environ("PUT", game + "/commands"),
        environ("GET", game + "/"), environ("GET", game, "wait=5"), environ("GET", game, "at=3"),
        environ("GET", game + "/legal", "form=compact&x=1"), environ("POST", game + "/commands", "x=1"),
        environ("POST", game + "/commands", CONTENT_TYPE="text/plain"),
        environ("GET", "/v1/games/\u00e9t\u00e9"), environ("GET", game + "/events"),
        environ("GET", game + "/commands"), environ("POST", game),
    ):
        assert served._route(declined) is None, declined


def test_a_hook_it_does_not_replay_stops_the_app(http_app: Flask, http_services: Any) -> None:
    http_app.before_request(lambda: None)
    with pytest.raises(RuntimeError, match="does not replay"):
        direct.DirectPlay(http_app, http_app.flask_wsgi_app, http_services)  # type: ignore[attr-defined]


def test_direct_answers_are_counted_under_their_route(both: Both, game: tuple[str, list[str]]) -> None:
    game_id, tokens = game
    seen: list[Any] = []
    inner = both.app.direct  # type: ignore[attr-defined]
    counted = REQUESTS.labels("GET", "/v1/games/<game_id>/legal", "200")
    before = counted._value.get()

    def spy(environ: dict[str, Any], start_response: Any) -> Any:
        answer = inner(environ, start_response)
        seen.append(environ.get(ROUTE_KEY))
        return answer

    both.app.direct = spy  # type: ignore[attr-defined]
    try:
        assert both.client.get(f"/v1/games/{game_id}", headers=bearer(tokens[0])).status_code == 200
        assert both.client.get(f"/v1/games/{game_id}/legal", headers=bearer(tokens[0])).status_code == 200
    finally:
        both.app.direct = inner  # type: ignore[attr-defined]
    assert seen == ["/v1/games/<game_id>", "/v1/games/<game_id>/legal"]
    assert counted._value.get() == before + 1


@pytest.fixture
def cors_app(redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str) -> Iterator[Flask]:
    yield make_app(app_settings(redis_target, key_prefix, cors_origins="https://ok.example"), redis_client)


def test_with_cors_on_the_answers_are_the_same(cors_app: Flask) -> None:
    both = Both(cors_app)
    api = FlaskApi(both.client)
    game_id = create_game(api, "schlitzohr", 2)
    tokens = seat_everyone(api, game_id, 2)
    for extra in ({}, {"Origin": "https://ok.example"}, {"Origin": "https://other.example"}):
        status, headers, _ = both.same("GET", f"/v1/games/{game_id}", headers=bearer(tokens[0], **extra))
        assert status == 200 and "Origin" in dict(headers)["Vary"]
        status, headers, _ = both.same("POST", f"/v1/games/{game_id}/commands",
                                       json={"command": {"kind": "roll"}}, headers=bearer(tokens[0], **extra))
        assert status == 428 and "Origin" in dict(headers)["Vary"]


@pytest.mark.parametrize(
    ("failure", "status"), [(RuntimeError("boom"), 500), (redis.ConnectionError("down"), 503)]
)
def test_failures_inside_the_answer_are_answered_by_flask(
    both: Both, game: tuple[str, list[str]], http_services: Any, monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture, failure: Exception, status: int,
) -> None:
    """A bug or a store outage while answering: Flask's handler answers it (the same
    problem document both ways) and an unexpected one is logged with its traceback."""
    game_id, tokens = game

    def fails(*args: Any, **kwargs: Any) -> Any:
        raise failure

    monkeypatch.setattr(http_services.app.queries, "view", fails)
    caplog.clear()
    got, _, body = both.same("GET", f"/v1/games/{game_id}", headers=bearer(tokens[0]))
    assert got == status and b"problems/" in body
    if status == 500:
        logged = [r for r in caplog.records if r.exc_info and r.exc_info[1] is failure]
        assert len(logged) == 2  # once per path, each with the exception that caused it
