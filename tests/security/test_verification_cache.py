"""A finished game's verification report is computed once and kept (issue 11, finding 6).

Repro: ``/verification`` recomputed the whole audit (420 ms on a 2,406-event game) on
every call, uncached and open to anyone. Now the first call stores the report under
the game's own key, ``<p>game:{<id>}:verification``, and later calls answer from there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import requests
from support.http_games import HttpApi, create_game, seat_everyone
from support.live_server import LiveServer
from support.redis import TestRedis
from support.security_games import finished_game, key_prefix_of, problem

from events.audit.verify import verify_lines
from service.app.verification import is_complete

ADMIN = {"Authorization": "Bearer security-admin-token-0123456789abcdef"}


@pytest.fixture
def redis_of(redis_target: TestRedis) -> Iterator[object]:
    client = redis_target.client()
    yield client
    client.close()


def _stored_key(server: LiveServer, game_id: str) -> str:
    return f"{key_prefix_of(server)}game:{{{game_id}}}:verification"


def test_the_report_is_kept_and_the_second_call_is_served_from_it(
    secure_server: LiveServer, api: HttpApi, redis_of: object
) -> None:
    game_id = finished_game(api, b"verification-cache")
    url = f"{secure_server.url}/v1/games/{game_id}/verification"
    key = _stored_key(secure_server, game_id)
    assert redis_of.get(key) is None  # type: ignore[attr-defined]
    first = api.session.get(url)
    assert first.status_code == 200 and first.json()["ok"] is True
    kept = redis_of.get(key)  # type: ignore[attr-defined]
    assert kept is not None and json.loads(kept) == first.json()
    # The kept report equals a fresh computation over the complete history.
    export = api.session.get(f"{secure_server.url}/v1/games/{game_id}/export", headers=ADMIN)
    assert export.headers["Tabletop-Export"] == "complete"
    assert verify_lines(export.text.splitlines()).to_json() == first.json()
    # The second call answers from the stored report, not from a new computation:
    # mark the stored one, and the mark comes back.
    marked = {**first.json(), "commands": -1}
    redis_of.set(key, json.dumps(marked))  # type: ignore[attr-defined]
    second = api.session.get(url)
    assert second.status_code == 200 and second.json() == marked


def test_a_kept_report_is_served_past_the_verification_limit(
    start_server: object, redis_of: object
) -> None:
    with start_server(verify_limit_per_minute=1) as server:  # type: ignore[operator]
        api = HttpApi(requests.Session(), server.url)
        game_id = finished_game(api, b"verification-limit")
        url = f"{server.url}/v1/games/{game_id}/verification"
        replies = [api.session.get(url) for _ in range(5)]
        assert [r.status_code for r in replies] == [200] * 5
        assert len({r.text for r in replies}) == 1


def test_a_running_game_is_not_verified_and_nothing_is_kept(
    secure_server: LiveServer, api: HttpApi, redis_of: object
) -> None:
    game_id = create_game(api, "abluxxen", 2)
    seat_everyone(api, game_id, 2)
    reply = api.session.get(f"{secure_server.url}/v1/games/{game_id}/verification")
    assert (reply.status_code, problem(reply)["code"]) == (409, "game_not_finished")
    assert redis_of.get(_stored_key(secure_server, game_id)) is None  # type: ignore[attr-defined]


def test_only_a_history_ending_with_the_seed_reveal_is_complete() -> None:
    """A read between ``GameEnded`` and ``SeedRevealed`` (two appends) must not freeze
    an incomplete report."""
    assert is_complete(['{"type":"GameCreated"}', '{"type":"SeedRevealed"}'])
    assert not is_complete(['{"type":"GameCreated"}', '{"type":"GameEnded"}'])
    assert not is_complete([])
