"""Property-based requests generated from openapi.yaml (schemathesis) against the live server.

Two passes over every operation, each a bounded, derandomised run (the same requests
every time, so it cannot flake):

- as generated -- mostly unknown games and no tokens, plus requests that break the
  contract on purpose (negative data), which must be refused with a 4xx;
- on a real running game, with a seat token: the path's game id and the
  Authorization header are replaced, so the generated bodies reach the rules.

Checks: no 5xx, every status, media type, header and body as the contract says
(schemathesis' own checks and ours, ``support.contract``).
"""

from __future__ import annotations

import uuid

import pytest
from requests.structures import CaseInsensitiveDict
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from support.contract import SPEC_PATH, check_response
from support.http_games import HttpApi, create_game, seat_everyone
from support.live_server import LiveServer

SCHEMA = schemathesis.openapi.from_path(SPEC_PATH)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]

BOUNDED = settings(
    max_examples=12,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def _own_names(case: schemathesis.Case) -> None:
    """Registered names are reserved for good on the shared server: a generated one
    (the contract's example ``ada``, say) would take a name other e2e tests seat guests
    under. So registrations get a prefix of their own (still a name of the same kind:
    too long stays too long, a control character stays one)."""
    body = case.body
    if case.method.upper() == "POST" and case.path == "/v1/players" and isinstance(body, dict):
        if isinstance(body.get("name"), str):
            body["name"] = "st" + uuid.uuid4().hex[:6] + body["name"]


def call(case: schemathesis.Case, server: LiveServer, extra: list) -> None:  # type: ignore[type-arg]
    _own_names(case)
    response = case.call_and_validate(base_url=server.url, checks=CHECKS + extra, timeout=15)
    headers = CaseInsensitiveDict({name: values[-1] for name, values in response.headers.items()})
    check_response(
        case.method, case.formatted_path, response.status_code, headers, response.content
    )


@SCHEMA.parametrize()
@BOUNDED
def test_generated_requests_get_no_5xx_and_conform(
    case: schemathesis.Case, live_server: LiveServer
) -> None:
    call(case, live_server, [negative_data_rejection])


@pytest.fixture(scope="module")
def running_game(live_server: LiveServer) -> tuple[str, str]:
    import requests

    with requests.Session() as session:
        api = HttpApi(session, live_server.url)
        game_id = create_game(api, "abluxxen", 2)
        return game_id, seat_everyone(api, game_id, 2)[0]


@SCHEMA.exclude(path="/v1/games/{game_id}/events/stream").parametrize()
@BOUNDED
def test_generated_requests_on_a_real_game(
    case: schemathesis.Case, live_server: LiveServer, running_game: tuple[str, str]
) -> None:
    game_id, token = running_game
    if "game_id" in (case.path_parameters or {}):
        case.path_parameters["game_id"] = game_id
    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
    call(case, live_server, [])
