"""The contract itself: openapi.yaml is valid OpenAPI 3.1, its examples match its schemas,
it covers exactly the app's routes, and the test oracle really rejects what it should."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import jsonschema_rs
import pytest
from flask import Flask
from openapi_spec_validator import validate
from support.contract import SPEC_PATH, check_response, resolve, spec
from support.http_games import FlaskApi

pytest_plugins = ("support.http_app",)  # fixtures: http_services, http_app, api

METHODS = ("get", "post", "put", "patch", "delete")


def test_the_spec_is_valid_openapi_3_1() -> None:
    assert spec()["openapi"].startswith("3.1")
    validate(spec())


def examples() -> Iterator[tuple[str, Any, Any]]:
    """(where, schema, example value) for every example of every media type in the spec."""
    for path, item in spec()["paths"].items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            bodies = [("request", operation.get("requestBody", {}))]
            bodies += [(status, resolve(r)) for status, r in operation["responses"].items()]
            for label, body in bodies:
                for media, content in body.get("content", {}).items():
                    found = [resolve(e)["value"] for e in content.get("examples", {}).values()]
                    found += [content["example"]] if "example" in content else []
                    for value in found:
                        yield f"{method.upper()} {path} {label} {media}", content["schema"], value


def test_every_operation_has_an_example_and_every_example_matches_its_schema() -> None:
    components = spec()["components"]
    checked = set()
    for where, schema, value in examples():
        validator = jsonschema_rs.validator_for({"allOf": [schema], "components": components})
        errors = [e.message for e in validator.iter_errors(value)]
        assert not errors, f"{where}: {errors[:3]}"
        checked.add(where.split(" ")[0] + " " + where.split(" ")[1])
    operations = {
        f"{m.upper()} {p}" for p, item in spec()["paths"].items() for m in METHODS if m in item
    }
    assert checked == operations  # a success example for each
    for name, response in components["responses"].items():
        if "content" in response:
            assert response["content"]["application/problem+json"]["examples"], name


def test_the_spec_covers_exactly_the_apps_routes(http_app: Flask) -> None:
    served = {
        (method.lower(), re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule))
        for rule in http_app.url_map.iter_rules()
        for method in rule.methods or ()
        if method not in ("HEAD", "OPTIONS")
    }
    documented = {(m, p) for p, item in spec()["paths"].items() for m in METHODS if m in item}
    assert served == documented


def test_every_problem_code_the_api_documents_is_listed_in_the_guide() -> None:
    guide = (SPEC_PATH.parent / "docs" / "api.md").read_text()
    text = json.dumps(spec())
    for code in (
        "malformed_json",
        "invalid_parameter",
        "invalid_header",
        "version_mismatch",
        "unauthenticated",
        "forbidden",
        "game_not_found",
        "unknown_game",
        "version_conflict",
        "body_too_large",
        "unsupported_media_type",
        "invalid_body",
        "version_required",
        "idempotency_key_reused",
        "rate_limited",
        "create_rate_limited",
        "verify_rate_limited",
        "replay_rate_limited",
        "ticket_rate_limited",
        "invalid_ticket",
        "name_registered",
        "name_reserved",
        "already_seated",
        "not_seated",
        "player_key_required",
        "invalid_encoding",
        "duplicate_key",
        "internal_error",
        "store_unavailable",
        "not_ready",
        "game_not_finished",
    ):
        assert f"`{code}`" in guide and code in text, code


VIEW_HEADERS = {"Content-Type": "application/json", "ETag": '"5"'}


def good_view() -> bytes:
    return json.dumps(resolve(spec()["components"]["examples"]["SchlitzohrView"])["value"]).encode()


@pytest.mark.parametrize(
    ("label", "status", "headers", "body"),
    [
        ("undocumented status", 418, VIEW_HEADERS, b"{}"),
        ("wrong media type", 200, {**VIEW_HEADERS, "Content-Type": "text/plain"}, b"x"),
        ("missing required header", 200, {"Content-Type": "application/json"}, None),
        ("malformed header", 200, {**VIEW_HEADERS, "ETag": "5"}, None),
        ("unknown field", 200, VIEW_HEADERS, "extra"),
        ("wrong type", 200, VIEW_HEADERS, "version"),
        ("a body on a 304", 304, {"ETag": '"5"'}, b"{}"),
        (
            "problem without code",
            404,
            {"Content-Type": "application/problem+json"},
            b'{"type": "x", "title": "t", "status": 404, "detail": "d"}',
        ),
    ],
)
def test_the_oracle_rejects_responses_outside_the_contract(
    label: str, status: int, headers: dict[str, str], body: Any
) -> None:
    view = json.loads(good_view())
    if body == "extra":
        view["state"]["hands"] = [[1, 2]]
    elif body == "version":
        view["version"] = "5"
    data = body if isinstance(body, bytes) else json.dumps(view).encode()
    with pytest.raises(AssertionError):
        check_response("GET", "/v1/games/abc", status, headers, data)


def test_the_oracle_accepts_the_documented_forms() -> None:
    check_response("GET", "/v1/games/abc", 200, VIEW_HEADERS, good_view())
    check_response("GET", "/v1/games/abc", 304, {"ETag": '"5"'}, b"")
    check_response(
        "GET",
        "/nowhere",
        404,
        {"Content-Type": "application/problem+json"},
        b'{"type": "x", "title": "t", "status": 404, "detail": "d", "code": "not_found"}',
    )


def test_the_served_contract_is_the_file_and_the_docs_show_every_operation(api: FlaskApi) -> None:
    assert api.call("GET", "/openapi.yaml").body == SPEC_PATH.read_text()
    page = api.call("GET", "/docs").body
    for path, item in spec()["paths"].items():
        for method in METHODS:
            if method in item:
                assert f'id="{method.upper()}-{path}"' in page
