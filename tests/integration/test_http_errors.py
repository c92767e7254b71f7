"""Every error path: a 4xx application/problem+json with a stable code, and no new event.

Each case runs against a running two-seat game and checks the game's head before
and after: a refused request writes nothing. The contract client checks every
answer against openapi.yaml on top.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import redis
from flask import Flask
from flask.testing import FlaskClient
from redis.backoff import NoBackoff
from redis.retry import Retry
from support.http_games import FlaskApi, Reply, create_game, seat_everyone
from support.http_setup import ADMIN_TOKEN, app_settings, make_app
from support.redis import TestRedis

from events.redis_adapter.server import RedisServer
from service.bootstrap import Services
from service.http.auth import limited_address
from service.http.ops import READY_TIMEOUT_S
from service.http.ratelimit import RateLimiter, retry_after

pytest_plugins = ("support.http_app",)  # fixtures: http_services, http_app, api


@dataclass
class Game:
    id: str
    tokens: list[str]
    version: int

    @property
    def commands(self) -> str:
        return f"/v1/games/{self.id}/commands"


@pytest.fixture
def game(api: FlaskApi) -> Game:
    game_id = create_game(api, "schlitzohr", 2)
    tokens = seat_everyone(api, game_id, 2)
    return Game(game_id, tokens, api.call("GET", f"/v1/games/{game_id}").body["version"])


def raw(app: Flask, path: str, **kwargs: Any) -> Reply:
    """A request with a hand-made body (malformed JSON, wrong types) through the contract client."""
    response = app.test_client().open(path, **kwargs)
    body = response.get_json(silent=True) if response.is_json else response.data
    return Reply(response.status_code, dict(response.headers), body)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def raw_command(app: Flask, game: Game, data: str | bytes) -> Reply:
    """A hand-made JSON body posted as seat 0's command (see :func:`raw`)."""
    return raw(app, game.commands, method="POST", data=data, content_type="application/json", headers=bearer(game.tokens[0]))


def roll(version: int | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"command": {"kind": "roll"}}
    if version is not None:
        body["expected_version"] = version
    return body


CASES: dict[str, tuple[int, str, Callable[[FlaskApi, Flask, Game], Reply]]] = {
    "unknown game": (
        404,
        "game_not_found",
        lambda a, f, g: a.call(
            "POST", "/v1/games/nosuchgame/commands", token=g.tokens[0], body=roll(1)
        ),
    ),
    "impossible game id": (
        404,
        "game_not_found",
        lambda a, f, g: a.call("GET", "/v1/games/no.such.game"),
    ),
    "missing token": (
        401,
        "unauthenticated",
        lambda a, f, g: a.call("POST", g.commands, body=roll(g.version)),
    ),
    "bad token": (
        401,
        "unauthenticated",
        lambda a, f, g: a.call(
            "POST", g.commands, token=g.tokens[0][:-3] + "abc", body=roll(g.version)
        ),
    ),
    "not a bearer header": (
        401,
        "unauthenticated",
        lambda a, f, g: a.call("GET", f"/v1/games/{g.id}", headers={"Authorization": "Basic eDp5"}),
    ),
    "token of another game": (
        401,
        "unauthenticated",
        lambda a, f, g: a.call(
            "GET", f"/v1/games/{create_game(a, 'abluxxen', 2)}", token=g.tokens[0]
        ),
    ),
    "leaving another seat": (
        403,
        "forbidden",
        lambda a, f, g: a.call("DELETE", f"/v1/games/{g.id}/seats/1", token=g.tokens[0]),
    ),
    "admin token sending a command": (
        403,
        "forbidden",
        lambda a, f, g: a.call("POST", g.commands, token=ADMIN_TOKEN, body=roll(g.version)),
    ),
    "out of turn": (
        422,
        "not_your_turn",
        lambda a, f, g: a.call("POST", g.commands, token=g.tokens[1], body=roll(g.version)),
    ),
    "illegal command": (
        422,
        "wrong_phase",
        lambda a, f, g: a.call(
            "POST",
            g.commands,
            token=g.tokens[0],
            body={"command": {"kind": "peek"}, "expected_version": g.version},
        ),
    ),
    "malformed command": (
        422,
        "malformed_command",
        lambda a, f, g: a.call(
            "POST",
            g.commands,
            token=g.tokens[0],
            body={"command": {"kind": "roll", "die": 6}, "expected_version": g.version},
        ),
    ),
    "unknown command": (
        422,
        "unknown_command",
        lambda a, f, g: a.call(
            "POST",
            g.commands,
            token=g.tokens[0],
            body={"command": {"kind": "cheat"}, "expected_version": g.version},
        ),
    ),
    "stale version": (
        409,
        "version_conflict",
        lambda a, f, g: a.call("POST", g.commands, token=g.tokens[0], body=roll(g.version - 1)),
    ),
    "stale If-Match": (
        409,
        "version_conflict",
        lambda a, f, g: a.call(
            "POST",
            g.commands,
            token=g.tokens[0],
            body=roll(),
            headers={"If-Match": f'"{g.version + 7}"'},
        ),
    ),
    "no version": (
        428,
        "version_required",
        lambda a, f, g: a.call("POST", g.commands, token=g.tokens[0], body=roll()),
    ),
    "If-Match and body disagree": (
        400,
        "version_mismatch",
        lambda a, f, g: a.call(
            "POST",
            g.commands,
            token=g.tokens[0],
            body=roll(g.version),
            headers={"If-Match": f'"{g.version - 1}"'},
        ),
    ),
    "weak If-Match": (
        400,
        "invalid_header",
        lambda a, f, g: a.call(
            "POST",
            g.commands,
            token=g.tokens[0],
            body=roll(),
            headers={"If-Match": f'W/"{g.version}"'},
        ),
    ),
    "idempotency key too long": (
        400,
        "invalid_header",
        lambda a, f, g: a.call(
            "POST",
            g.commands,
            token=g.tokens[0],
            body=roll(g.version),
            headers={"Idempotency-Key": "k" * 201},
        ),
    ),
    "malformed JSON": (
        400,
        "malformed_json",
        lambda a, f, g: raw_command(f, g, '{"command": '),
    ),
    "NaN is not JSON": (
        400,
        "malformed_json",
        lambda a, f, g: raw_command(f, g, '{"command": {"kind": "roll"}, "expected_version": NaN}'),
    ),
    "absurd nesting": (
        400,
        "malformed_json",
        lambda a, f, g: raw_command(f, g, "[" * 8000 + "]" * 8000),
    ),
    "nesting one level past the cap": (
        400,
        "malformed_json",
        # 65 levels: within any interpreter's recursion limit, so only the cap refuses it.
        lambda a, f, g: raw_command(
            f, g, json.dumps({"command": {"kind": "roll", "x": json.loads("[" * 63 + "]" * 63)}, "expected_version": g.version})
        ),
    ),
    "body not an object": (
        422,
        "invalid_body",
        lambda a, f, g: a.call("POST", g.commands, token=g.tokens[0], body=[1, 2]),
    ),
    "unknown field": (
        422,
        "invalid_body",
        lambda a, f, g: a.call(
            "POST", g.commands, token=g.tokens[0], body={**roll(g.version), "seat": 1}
        ),
    ),
    "missing field": (
        422,
        "invalid_body",
        lambda a, f, g: a.call(
            "POST", g.commands, token=g.tokens[0], body={"expected_version": g.version}
        ),
    ),
    "wrong type": (
        422,
        "invalid_body",
        lambda a, f, g: a.call(
            "POST",
            g.commands,
            token=g.tokens[0],
            body={"command": {"kind": "roll"}, "expected_version": "7"},
        ),
    ),
    "boolean for an integer": (
        422,
        "invalid_body",
        lambda a, f, g: a.call(
            "POST",
            g.commands,
            token=g.tokens[0],
            body={"command": {"kind": "roll"}, "expected_version": True},
        ),
    ),
    "oversized body": (
        413,
        "body_too_large",
        lambda a, f, g: a.call(
            "POST",
            g.commands,
            token=g.tokens[0],
            body={"command": {"kind": "roll", "pad": "x" * 20_000}, "expected_version": g.version},
        ),
    ),
    "wrong content type": (
        415,
        "unsupported_media_type",
        lambda a, f, g: raw(
            f,
            g.commands,
            method="POST",
            data="kind=roll",
            content_type="application/x-www-form-urlencoded",
            headers=bearer(g.tokens[0]),
        ),
    ),
    "no content type": (
        415,
        "unsupported_media_type",
        lambda a, f, g: raw(
            f,
            g.commands,
            method="POST",
            data=b'{"command": {"kind": "roll"}}',
            headers=bearer(g.tokens[0]),
        ),
    ),
    "unknown query parameter": (
        400,
        "invalid_parameter",
        lambda a, f, g: a.call("GET", f"/v1/games/{g.id}/events?limt=5"),
    ),
    "repeated query parameter": (
        400,
        "invalid_parameter",
        lambda a, f, g: a.call("GET", f"/v1/games/{g.id}/events?limit=5&limit=6"),
    ),
    "limit over the cap": (
        400,
        "invalid_parameter",
        lambda a, f, g: a.call("GET", f"/v1/games/{g.id}/events?limit=501"),
    ),
    "not a number": (
        400,
        "invalid_parameter",
        lambda a, f, g: a.call("GET", f"/v1/games/{g.id}?wait=soon"),
    ),
    "bad Last-Event-ID": (
        400,
        "invalid_header",
        lambda a, f, g: a.call(
            "GET", f"/v1/games/{g.id}/events/stream", headers={"Last-Event-ID": "seven"}
        ),
    ),
    "joining a running game": (
        422,
        "game_already_started",
        lambda a, f, g: a.call("POST", f"/v1/games/{g.id}/seats", body={"name": "eve"}),
    ),
    "leaving a running game": (
        422,
        "game_already_started",
        lambda a, f, g: a.call("DELETE", f"/v1/games/{g.id}/seats/0", token=g.tokens[0]),
    ),
    "unknown route": (404, "not_found", lambda a, f, g: a.call("GET", "/v1/nowhere")),
    "wrong method": (
        405,
        "method_not_allowed",
        lambda a, f, g: a.call("PUT", g.commands, body=roll(g.version)),
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_an_error_is_a_problem_with_its_code_and_writes_nothing(
    api: FlaskApi, http_app: Flask, http_services: Services, game: Game, case: str
) -> None:
    status, code, send = CASES[case]
    reply = send(api, http_app, game)
    assert (reply.status, reply.code) == (status, code), reply.body
    assert reply.headers["Content-Type"] == "application/problem+json"
    assert reply.body["type"].endswith("/" + code) and reply.body["status"] == status
    assert http_services.store.head(game.id).version == game.version


def spellings(path: str) -> list[str]:
    """``path`` with one inner slash doubled (each in turn), and with a trailing slash."""
    inner = [i for i, c in enumerate(path) if c == "/" and i > 0]
    return [path[:i] + "/" + path[i:] for i in inner] + [path + "/"]


def test_no_spelling_of_a_path_is_redirected(http_app: Flask, game: Game) -> None:
    # Werkzeug answers a doubled slash with a 308 to the merged path by default: an HTML
    # body outside every error handler, a Location built from the client's Host header,
    # and a client that follows it sends its POST again. Every rule, every method.
    values = {"game_id": game.id, "seat": 0, "name": "schlitzohr", "game": "schlitzohr", "level": "greedy"}
    client = FlaskClient(http_app)  # not the contract's: it would check the URL, not the raw path

    def at(method: str, raw_path: str) -> Any:
        # As the server hands the path on (given as a URL, "//x" would name a host).
        return client.open("/", method=method, environ_overrides={"PATH_INFO": raw_path, "HTTP_HOST": "evil.example"})

    checked = 0
    for rule in http_app.url_map.iter_rules():
        if rule.rule == "/":
            continue  # "/" has no inner slash; its empty spelling is below
        path = rule.rule
        for name, value in values.items():
            path = path.replace(f"<{name}>", str(value)).replace(f"<seat:{name}>", str(value))
        assert "<" not in path, rule.rule  # a new route's argument: give it a value above
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            for spelling in spellings(path):
                response = at(method, spelling)
                assert (response.status_code, response.content_type) == (404, "application/problem+json"), (
                    method, spelling, response.status_code, response.headers.get("Location"))
                assert response.json["code"] == "not_found"
                checked += 1
        if "GET" in rule.methods and rule.endpoint != "history.stream":
            # Werkzeug reads leading slashes as one: the same answer, never a redirect.
            assert at("GET", "/" + path).status_code == at("GET", path).status_code, path
    assert checked > 50  # every rule was tried
    # A request in absolute form without a path (GET http://host) reaches the app with an
    # empty path: it is the root (RFC 9112), not a redirect to it.
    lobby = at("GET", "")
    assert (lobby.status_code, lobby.content_type) == (200, "text/html; charset=utf-8")


SEAT_SPELLINGS = ("00", "01", "\u0660", "\uff10", "\U0001d7ce", "+0", "0x0", " 0", "1000000000", "9" * 30)
"""Spellings of seat numbers that are no path of the API: leading zeros, other scripts'
digits (Arabic-Indic, fullwidth, mathematical), signs, more digits than the contract's."""


def test_a_seat_in_a_path_has_one_spelling(http_app: Flask, game: Game) -> None:
    # Werkzeug's int converter read every Unicode digit: /seats/\u0660 was seat 0.
    client = FlaskClient(http_app)
    routes = [r for r in http_app.url_map.iter_rules() if "seat" in r.arguments]
    assert len(routes) == 2  # leave, and a player's token reissue
    for rule in routes:
        (method,) = rule.methods - {"HEAD", "OPTIONS"}
        template = rule.rule.replace("<game_id>", game.id)
        # The one spelling reaches the view: the running game refuses to be left, the
        # reissue asks for a player key -- either way it is not the router's 404.
        matched = client.open(template.replace("<seat:seat>", "0"), method=method, headers=bearer(game.tokens[0]))
        assert matched.json["code"] in ("game_already_started", "player_key_required"), matched.json
        for spelling in SEAT_SPELLINGS:
            path = template.replace("<seat:seat>", quote(spelling))
            answer = client.open(path, method=method, headers=bearer(game.tokens[0]))
            assert (answer.status_code, answer.json["code"]) == (404, "not_found"), (path, answer.json)
    assert client.get(f"/v1/games/{game.id}").json["version"] == game.version  # nothing written


def test_problem_details_carry_what_a_client_needs(api: FlaskApi, game: Game) -> None:
    stale = api.call("POST", game.commands, token=game.tokens[0], body=roll(game.version - 1))
    assert stale.body["current_version"] == game.version
    unauthenticated = api.call("POST", game.commands, body=roll(game.version))
    assert unauthenticated.headers["WWW-Authenticate"].startswith("Bearer")
    wrong = api.call("PUT", game.commands)
    assert set(wrong.headers["Allow"].split(", ")) >= {"POST"}
    invalid = api.call(
        "POST",
        game.commands,
        token=game.tokens[0],
        body={"command": {"kind": "roll"}, "colour": "red"},
    )
    assert invalid.body["errors"] == {"colour": ["Unknown field."]}
    option = api.call(
        "POST", "/v1/games", body={"game": "abluxxen", "players": 2, "options": {"rounds": 11}}
    )
    assert option.code == "invalid_option" and option.body["details"]["maximum"] == 10
    assert (
        api.call("POST", "/v1/games", body={"game": "chess", "players": 2}).code == "unknown_game"
    )
    assert (
        api.call("POST", "/v1/games", body={"game": "abluxxen", "players": 9}).code
        == "invalid_player_count"
    )
    assert (
        api.call(
            "POST", "/v1/games", body={"game": "abluxxen", "players": 2, "bots": {"2": "random"}}
        ).code
        == "invalid_seat"
    )


def test_a_replayed_idempotency_key_answers_the_same_even_after_the_game_moved(
    api: FlaskApi, game: Game
) -> None:
    headers = {"Idempotency-Key": "retry-me"}
    first = api.call(
        "POST", game.commands, token=game.tokens[0], body=roll(game.version), headers=headers
    )
    second = api.call(
        "POST", game.commands, token=game.tokens[0], body=roll(game.version), headers=headers
    )
    assert (second.status, second.body) == (first.status, first.body)
    reused = api.call(
        "POST",
        game.commands,
        token=game.tokens[0],
        body={"command": {"kind": "joker"}, "expected_version": game.version},
        headers=headers,
    )
    assert (reused.status, reused.code) == (422, "idempotency_key_reused")


def test_the_rate_limit_answers_429_with_retry_after(
    redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str
) -> None:
    app = make_app(app_settings(redis_target, key_prefix, rate_limit_per_minute=5), redis_client)
    limited = FlaskApi(app.test_client())
    statuses = [limited.call("GET", "/v1/catalogue").status for _ in range(6)]
    assert statuses == [200] * 5 + [429]
    refused = limited.call("GET", "/v1/catalogue")
    assert refused.code == "rate_limited" and 1 <= int(refused.headers["Retry-After"]) <= 120
    # An unverified token is no identity: it is counted against the same address.
    assert limited.call("GET", "/v1/catalogue", token="someone-else").status == 429
    assert limited.call("GET", "/healthz").status == 200  # probes are never limited


def test_behind_a_trusted_proxy_each_client_address_has_its_own_limit(
    redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str
) -> None:
    settings = app_settings(redis_target, key_prefix, rate_limit_per_minute=2, trusted_proxies=1)
    client = FlaskApi(make_app(settings, redis_client).test_client())
    first = {"X-Forwarded-For": "198.51.100.7"}
    assert [client.call("GET", "/v1/catalogue", headers=first).status for _ in range(3)] == [
        200,
        200,
        429,
    ]
    assert (
        client.call("GET", "/v1/catalogue", headers={"X-Forwarded-For": "198.51.100.8"}).status
        == 200
    )


def test_an_ipv6_client_is_counted_by_its_64_so_it_cannot_spread_over_its_own_addresses(
    redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str
) -> None:
    # An IPv6 host may take any address of its /64: a limit per address would give it
    # 2^64 buckets. Here each request comes from another address of one /64.
    settings = app_settings(redis_target, key_prefix, rate_limit_per_minute=2, trusted_proxies=1)
    client = FlaskApi(make_app(settings, redis_client).test_client())
    same_64 = ["2001:db8:1:2::1", "2001:db8:1:2:ffff::7", "2001:db8:1:2:abcd:1:2:3"]
    statuses = [
        client.call("GET", "/v1/catalogue", headers={"X-Forwarded-For": a}).status for a in same_64
    ]
    assert statuses == [200, 200, 429]
    # Another /64 is another client; an IPv4-mapped address is its IPv4 client.
    assert client.call("GET", "/v1/catalogue", headers={"X-Forwarded-For": "2001:db8:1:3::1"}).status == 200
    mapped = {"X-Forwarded-For": "::ffff:198.51.100.9"}
    plain = {"X-Forwarded-For": "198.51.100.9"}
    assert [client.call("GET", "/v1/catalogue", headers=h).status for h in (mapped, plain, plain)] == [
        200, 200, 429,
    ]


@pytest.mark.parametrize(
    ("address", "client"),
    [
        ("203.0.113.5", "203.0.113.5"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:DB8:1:2::9", "2001:db8:1:2::/64"),
        ("::ffff:203.0.113.5", "203.0.113.5"),
        ("fe80::1%eth0", "fe80::/64"),
        ("unknown", "unknown"),
        ("not:an:address", "not:an:address"),
    ],
)
def test_the_address_a_client_is_counted_by(address: str, client: str) -> None:
    assert limited_address(address) == client


def test_an_unexpected_error_is_a_500_problem_without_internals(http_app: Flask) -> None:
    def boom() -> None:
        raise RuntimeError("secret internals: /etc/passwd")

    http_app.view_functions["catalogue.catalogue"] = boom  # a bug behind a real route
    response = http_app.test_client().get("/v1/catalogue")  # the contract client checks the 500
    assert response.status_code == 500 and response.content_type == "application/problem+json"
    assert response.json["code"] == "internal_error" and "secret" not in response.get_data(
        as_text=True
    )


def test_redis_down_is_a_503_problem(redis_target: TestRedis, key_prefix: str) -> None:
    # No retries: redis-py would otherwise back off for seconds before giving up.
    dead = redis.Redis(
        host="127.0.0.1", port=1, socket_connect_timeout=0.2, retry=Retry(NoBackoff(), 0)
    )
    app = make_app(app_settings(redis_target, key_prefix, rate_limit_per_minute=0), dead)
    client = FlaskApi(app.test_client())
    assert client.call("GET", "/v1/games/abc").code == "store_unavailable"
    ready = client.call("GET", "/readyz")
    assert (ready.status, ready.code, ready.headers["Retry-After"]) == (503, "not_ready", "1")
    assert client.call("GET", "/healthz").status == 200


def test_a_hung_redis_makes_readyz_503_in_bounded_time(
    tmp_path: Path, redis_target: TestRedis, key_prefix: str
) -> None:
    # A Redis that accepts and never answers (stopped): /readyz waited as long as it hung.
    server = RedisServer(directory=tmp_path).start()
    try:
        client = server.client()
        app = make_app(app_settings(redis_target, key_prefix, redis_url=server.url), client)
        api = FlaskApi(app.test_client())
        assert api.call("GET", "/readyz").status == 200
        os.kill(server.pid, signal.SIGSTOP)
        answers: list[Reply] = []
        asking = threading.Thread(target=lambda: answers.append(api.call("GET", "/readyz")), daemon=True)
        asking.start()
        asking.join(3 * READY_TIMEOUT_S)  # a bound for the test, not a measurement
        assert answers, "/readyz still waits on the stopped Redis"
        (ready,) = answers
        assert (ready.status, ready.code, ready.headers["Retry-After"]) == (503, "not_ready", "1")
        assert api.call("GET", "/healthz").status == 200
        os.kill(server.pid, signal.SIGCONT)
        assert api.call("GET", "/readyz").status == 200  # the same probe client recovers
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server.pid, signal.SIGCONT)
        server.close()


@pytest.mark.parametrize(
    ("current", "previous", "elapsed", "expected"),
    [
        (5, 0, 30.0, None),  # 5 requests this minute: within a limit of 5
        (3, 4, 30.0, None),  # 3 + 4 * (1 - 30/60) = 5: still within
        (3, 6, 30.0, 60.0 * (1 - 2 / 6) - 30.0),  # 3 + 6 * 0.5 = 6: wait until 6 * w <= 2
        (6, 0, 0.0, 60.0 + 60.0 * (1 - 4 / 6)),  # this minute is over: next minute, once 6 * w <= 4
    ],
)
def test_the_sliding_window_says_how_long_to_wait(
    current: int, previous: int, elapsed: float, expected: float | None
) -> None:
    wait = retry_after(5, current, previous, elapsed)
    if expected is None:
        assert wait is None
    else:
        assert wait == pytest.approx(expected)


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class CountingLimiter(RateLimiter):
    """A limiter that counts its Redis round trips."""

    round_trips = 0

    def _count(self, bucket: str, window: int, size: int) -> tuple[int, int]:
        self.round_trips += 1
        return super()._count(bucket, window, size)


def test_leases_never_let_a_bucket_past_its_limit_and_spare_most_round_trips(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    clock = Clock(6_000_030.0)  # 30 s into a minute
    processes = [CountingLimiter(redis_client, key_prefix, 200, clock) for _ in range(3)]
    counter = processes[0].key("tok", int(clock.now // 60))
    served, trips_while_serving = 0, 0
    for i in range(400):  # round robin over three API processes, one bucket
        if processes[i % 3].hit("tok") is None:
            served += 1
            assert served <= int(redis_client.get(counter))  # counted before it is served
            trips_while_serving = sum(p.round_trips for p in processes)
    assert 200 - 3 * 2 <= served <= 200  # never past the limit, and little lost near it
    assert trips_while_serving < served / 4  # most requests were served from a lease


def test_a_lease_ends_with_its_minute(redis_client: redis.Redis, key_prefix: str) -> None:
    clock = Clock(6_000_000.0)
    limiter = RateLimiter(redis_client, key_prefix, 3, clock)
    assert [limiter.hit("b") for _ in range(3)] == [None, None, None]
    assert limiter.hit("b") is not None
    clock.now += 120  # two minutes later both windows are gone
    assert limiter.hit("b") is None
