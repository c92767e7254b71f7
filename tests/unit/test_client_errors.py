"""How the client turns an error answer into a typed exception (``error_for``):
by status, then by problem code; a body that is no problem document still gives a
``TabletopError``. Answers are built as ``requests`` builds them from the wire."""

from __future__ import annotations

import json

import pytest
import requests

from tabletop_client import errors as e


def answer(status: int, body: object, headers: dict[str, str] | None = None) -> requests.Response:
    response = requests.Response()
    response.status_code = status
    response.reason = "Reason"
    response.headers.update(headers or {})
    response._content = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    return response


def problem(status: int, code: str, **extra: object) -> dict[str, object]:
    return {"type": f"https://tabletop.dev/problems/{code}", "title": "T", "status": status,
            "detail": f"about {code}", "code": code, **extra}  # fmt: skip


@pytest.mark.parametrize(
    "status,code,kind",
    [
        (400, "invalid_parameter", e.BadRequest),
        (401, "unauthenticated", e.Unauthorized),
        (403, "forbidden", e.Forbidden),
        (404, "game_not_found", e.NotFound),
        (409, "game_not_finished", e.Conflict),
        (422, "not_your_turn", e.RuleRefused),
        (428, "version_required", e.TabletopError),
    ],
)
def test_status_decides_the_class_and_the_code_is_kept(status: int, code: str, kind: type) -> None:
    error = e.error_for(answer(status, problem(status, code)))
    assert type(error) is kind
    assert (error.status, error.code, error.detail) == (status, code, f"about {code}")


def test_a_stale_version_carries_the_current_one() -> None:
    error = e.error_for(answer(409, problem(409, "version_conflict", current_version=12)))
    assert isinstance(error, e.StaleVersion) and isinstance(error, e.Conflict)
    assert error.current_version == 12


def test_limits_and_outages_carry_retry_after() -> None:
    limited = e.error_for(answer(429, problem(429, "rate_limited"), {"Retry-After": "7"}))
    assert isinstance(limited, e.RateLimited) and limited.retry_after == 7
    down = e.error_for(answer(503, problem(503, "store_unavailable"), {"Retry-After": "1"}))
    assert isinstance(down, e.Unavailable) and down.retry_after == 1


def test_a_body_that_is_no_problem_document() -> None:
    error = e.error_for(answer(502, "<html>Bad Gateway</html>"))
    assert type(error) is e.TabletopError and error.code == "http_502" and error.status == 502
