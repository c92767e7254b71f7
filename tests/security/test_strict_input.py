"""Strict input (issue 11, finding 7): only UTF-8 JSON, one value, no key twice; names
without control or bidi characters, normalised to NFC; bodies over the cap are 413
however they are sent. Every refusal is a 4xx problem+json with a stable code, never a
500, and writes nothing.

Repros: a lone surrogate in a name was a 500; a chunked body over the cap was cut at
the cap silently (400, or 201 with the trailing garbage ignored); UTF-16/32, a BOM and
duplicate keys were accepted; names took NUL, newlines and bidi overrides.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from support.http_games import HttpApi, create_game
from support.live_server import LiveServer
from support.redis import TestRedis
from support.security_games import key_prefix_of, problem

CAP = 16_384  # the shipped max_body_bytes
JSON = {"Content-Type": "application/json"}
CREATE = '{"game": "abluxxen", "players": 2}'


@pytest.fixture
def games_count(secure_server: LiveServer, redis_target: TestRedis) -> Iterator[Any]:
    """How many games the server's store holds (their head keys)."""
    client = redis_target.client()
    pattern = f"{key_prefix_of(secure_server)}game:*:head"
    yield lambda: sum(1 for _ in client.scan_iter(match=pattern, count=1000))
    client.close()


def _post(api: HttpApi, path: str, data: Any, headers: dict[str, str] | None = None) -> requests.Response:
    return api.session.post(api.base_url + path, data=data, headers={**JSON, **(headers or {})}, timeout=30)


def _chunks(data: bytes, size: int = 1000) -> Iterator[bytes]:
    """A body sent with ``Transfer-Encoding: chunked`` (requests does for a generator)."""
    for i in range(0, len(data), size):
        yield data[i : i + size]


def _refused(reply: requests.Response, status: int, code: str) -> None:
    body = problem(reply)
    assert (reply.status_code, body["code"]) == (status, code), body


CREATE_REFUSALS = [
    ("utf-16 with BOM", CREATE.encode("utf-16"), 400, "invalid_encoding"),
    ("utf-16-le", CREATE.encode("utf-16-le"), 400, "invalid_encoding"),
    ("utf-16-be", CREATE.encode("utf-16-be"), 400, "invalid_encoding"),
    ("utf-32", CREATE.encode("utf-32"), 400, "invalid_encoding"),
    ("utf-8 BOM", b"\xef\xbb\xbf" + CREATE.encode(), 400, "invalid_encoding"),
    ("latin-1 byte", b'{"game": "abluxxen\xe9", "players": 2}', 400, "invalid_encoding"),
    ("encoded surrogate", b'{"game": "\xed\xa0\x80", "players": 2}', 400, "invalid_encoding"),
    ("escaped lone surrogate", b'{"game": "abluxxen", "players": 2, "options": {"\\ud800": 1}}', 400, "invalid_encoding"),
    ("duplicate key", b'{"game": "abluxxen", "players": 2, "players": 3}', 400, "duplicate_key"),
    ("nested duplicate key", b'{"game": "abluxxen", "players": 2, "options": {"a": 1, "a": 1}}', 400, "duplicate_key"),
    ("trailing garbage", CREATE.encode() + b" x", 400, "malformed_json"),
    ("a second value", CREATE.encode() + CREATE.encode(), 400, "malformed_json"),
    ("over the cap", CREATE.encode() + b" " * CAP, 413, "body_too_large"),
]


@pytest.mark.parametrize(("label", "data", "status", "code"), CREATE_REFUSALS, ids=[c[0] for c in CREATE_REFUSALS])
@pytest.mark.parametrize("chunked", [False, True], ids=["length", "chunked"])
def test_malformed_create_bodies_are_refused_and_create_nothing(
    api: HttpApi, games_count: Any, label: str, data: bytes, status: int, code: str, chunked: bool
) -> None:
    before = games_count()
    reply = _post(api, "/v1/games", _chunks(data) if chunked else data)
    _refused(reply, status, code)
    assert games_count() == before


def test_a_chunked_body_over_the_cap_is_413_not_cut_at_the_cap(api: HttpApi, games_count: Any) -> None:
    """The repro: valid JSON within the cap, garbage past it. Cut at the cap, this was a 201."""
    before = games_count()
    data = CREATE.encode() + b" " * (CAP - len(CREATE)) + b"garbage"
    _refused(_post(api, "/v1/games", _chunks(data)), 413, "body_too_large")
    _refused(_post(api, "/v1/games", _chunks(b"[" + b"1," * CAP + b"1]")), 413, "body_too_large")
    assert games_count() == before
    # Within the cap a chunked body is read whole, as before.
    assert _post(api, "/v1/games", _chunks(CREATE.encode() + b" " * 100, 7)).status_code == 201


NAME_REFUSALS = [
    ("escaped lone surrogate", b'{"name": "ab\\udc00"}', 400, "invalid_encoding"),
    ("lone high surrogate", b'{"name": "\\ud83d"}', 400, "invalid_encoding"),
    ("NUL", json.dumps({"name": "ab\u0000c"}).encode(), 422, "bad_player_name"),
    ("newline", json.dumps({"name": "ab\ncd"}).encode(), 422, "bad_player_name"),
    ("carriage return", json.dumps({"name": "ab\rcd"}).encode(), 422, "bad_player_name"),
    ("tab", json.dumps({"name": "ab\tcd"}).encode(), 422, "bad_player_name"),
    ("C1 control", json.dumps({"name": "ab\u0085cd"}).encode(), 422, "bad_player_name"),
    ("line separator", json.dumps({"name": "ab\u2028cd"}).encode(), 422, "bad_player_name"),
    ("bidi override", json.dumps({"name": "\u202eevil"}).encode(), 422, "bad_player_name"),
    ("bidi isolate", json.dumps({"name": "a\u2067b\u2069"}).encode(), 422, "bad_player_name"),
    ("right-to-left mark", json.dumps({"name": "ab\u200f"}).encode(), 422, "bad_player_name"),
    ("raw bidi override", '{"name": "\u202eevil"}'.encode(), 422, "bad_player_name"),
    ("duplicate name key", b'{"name": "alice", "name": "bob"}', 400, "duplicate_key"),
    ("trailing garbage", b'{"name": "alice"} }', 400, "malformed_json"),
]


@pytest.mark.parametrize(("label", "data", "status", "code"), NAME_REFUSALS, ids=[c[0] for c in NAME_REFUSALS])
def test_bad_names_are_refused_and_take_no_seat(
    api: HttpApi, label: str, data: bytes, status: int, code: str
) -> None:
    game_id = create_game(api, "abluxxen", 2)
    version = api.call("GET", f"/v1/games/{game_id}").body["version"]
    _refused(_post(api, f"/v1/games/{game_id}/seats", data), status, code)
    view = api.call("GET", f"/v1/games/{game_id}").body
    assert view["version"] == version and all(seat["name"] is None for seat in view["seats"])


def test_names_are_normalised_to_nfc(api: HttpApi) -> None:
    game_id = create_game(api, "abluxxen", 2)
    decomposed = _post(api, f"/v1/games/{game_id}/seats", json.dumps({"name": "Rene\u0301"}))
    assert decomposed.status_code == 201, decomposed.text
    assert decomposed.json()["view"]["seats"][0]["name"] == "Ren\u00e9"
    # The precomposed spelling is the same name: taken already.
    _refused(_post(api, f"/v1/games/{game_id}/seats", json.dumps({"name": "Ren\u00e9"})), 422, "name_taken")


def test_command_bodies_are_strict_too(api: HttpApi) -> None:
    game_id = create_game(api, "abluxxen", 2)
    token = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": "p0"}).body["token"]
    api.call("POST", f"/v1/games/{game_id}/seats", body={"name": "p1"})
    version = api.call("GET", f"/v1/games/{game_id}").body["version"]
    auth = {"Authorization": f"Bearer {token}"}
    path = f"/v1/games/{game_id}/commands"
    cases = [
        (b'{"command": {"kind": "x"}, "expected_version": 1, "expected_version": 2}', 400, "duplicate_key"),
        (b'{"command": {"kind": "\\udfff"}, "expected_version": 1}', 400, "invalid_encoding"),
        (json.dumps({"command": {}, "expected_version": version}).encode("utf-16"), 400, "invalid_encoding"),
        (b'{"command": {}, "expected_version": 1}]', 400, "malformed_json"),
        (b'{"command": {}, "expected_version": 1}' + b" " * CAP, 413, "body_too_large"),
    ]
    for data, status, code in cases:
        _refused(_post(api, path, data, auth), status, code)
        _refused(_post(api, path, _chunks(data), auth), status, code)
    assert api.call("GET", f"/v1/games/{game_id}").body["version"] == version
