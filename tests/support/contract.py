"""The OpenAPI contract as a test oracle: every response a test receives must match it.

:func:`check_response` finds the operation of a response in ``openapi.yaml`` (path
template and method), then requires its status to be documented there, its media
type to be one the operation declares, its body to validate against that media
type's schema (JSON Schema 2020-12, as OpenAPI 3.1 uses it; validated by
``jsonschema_rs``: pure-Python validators take milliseconds per large view, and the
suites check thousands of responses), and every header the response declares as
required to be present and valid. A response to a path or method the contract does
not know (a deliberate 404/405 test) must still be a well-formed problem document
(or Flask's automatic answer to OPTIONS: 200, ``Allow``, no body).

``ContractClient`` is a Flask test client that checks every response it returns;
``ContractSession`` is the same for ``requests`` against a live server.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema_rs
import requests
import yaml
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

SPEC_PATH = Path(__file__).resolve().parents[2] / "openapi.yaml"
PROBLEM_KEYS = {"type", "title", "status", "detail", "code"}
JSON_TYPES = ("application/json", "application/problem+json")
YAML = "application/yaml"
SSE = "text/event-stream"


@functools.cache
def spec() -> dict[str, Any]:
    """The contract, parsed."""
    return yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@functools.cache
def _routes() -> list[tuple[re.Pattern[str], str]]:
    """Path templates as regexes (``{name}`` = one path segment)."""
    return [
        (re.compile(re.sub(r"\{[^}]+\}", "[^/]+", template)), template)
        for template in spec()["paths"]
    ]


def resolve(node: Any) -> Any:
    """``node`` with a local ``$ref`` followed."""
    while isinstance(node, dict) and "$ref" in node:
        target: Any = spec()
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


@functools.cache
def _validator(keys: tuple[str, ...]) -> Any:
    """A compiled validator for the schema at ``keys`` (its refs resolve within the spec)."""
    schema: Any = spec()
    for key in keys:
        schema = schema[key]
    return jsonschema_rs.validator_for({"allOf": [schema], "components": spec()["components"]})


def check_response(
    method: str, url: str, status: int, headers: Mapping[str, str], body: bytes
) -> None:
    """AssertionError unless the response matches the contract (see the module docstring)."""
    path = urlsplit(url).path
    media = (headers.get("Content-Type") or "").split(";")[0].strip()
    what = f"{method} {path} -> {status}"
    template = next((t for pattern, t in _routes() if pattern.fullmatch(path)), None)
    operation = spec()["paths"][template].get(method.lower()) if template else None
    if operation is None:  # deliberate requests outside the contract
        _check_outside(what, method, status, media, headers, body)
        return
    keys: tuple[str, ...] = ("paths", template, method.lower(), "responses", str(status))
    response = operation["responses"].get(str(status))
    assert response is not None, f"{what}: status not in the contract"
    if "$ref" in response:
        keys = tuple(response["$ref"].removeprefix("#/").split("/"))
        response = resolve(response)
    _check_headers(what, response, headers)
    content = response.get("content")
    if content is None:
        assert body == b"", f"{what}: a body where the contract has none"
        return
    assert media in content, f"{what}: media type {media!r} not in {sorted(content)}"
    if media == SSE:
        _check_stream(what, keys, body)
        return
    value = (
        json.loads(body)
        if media in JSON_TYPES
        else yaml.safe_load(body)
        if media == YAML
        else body.decode()
    )
    errors = [
        f"{e.message} at {list(e.instance_path)}"
        for e in _validator((*keys, "content", media, "schema")).iter_errors(value)
    ]
    assert not errors, f"{what}: the body breaks its schema: {errors[:3]}\n{body[:1000]!r}"


def _sse_events(text: str) -> list[dict[str, Any]]:
    """The events of a Server-Sent Events body (comments and retry-only blocks skipped)."""
    events = []
    for block in text.split("\n\n"):
        event: dict[str, Any] = {}
        data: list[str] = []
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if field == "data":
                data.append(value)
            elif field == "retry":
                event["retry"] = int(value)
            elif field in ("id", "event"):
                event[field] = value
        if data:
            events.append({**event, "data": "\n".join(data)})
    return events


def _check_stream(what: str, keys: tuple[str, ...], body: bytes) -> None:
    """Each event against the stream's per-event schema, its data against ``Envelope``."""
    envelope = _validator(("components", "schemas", "Envelope"))
    for event in _sse_events(body.decode()):
        per_event = _validator((*keys, "content", SSE, "schema"))
        errors = [e.message for e in per_event.iter_errors(event)]
        errors += [e.message for e in envelope.iter_errors(json.loads(event["data"]))]
        assert not errors, f"{what}: an event breaks its schema: {errors[:3]}\n{event}"


def _check_headers(what: str, response: dict[str, Any], headers: Mapping[str, str]) -> None:
    for name, header in response.get("headers", {}).items():
        header = resolve(header)
        value = headers.get(name)
        if value is None:
            assert not header.get("required"), f"{what}: required header {name} missing"
            continue
        assert jsonschema_rs.is_valid(
            header["schema"], value
        ), f"{what}: header {name}={value!r} breaks its schema"


def _check_outside(
    what: str, method: str, status: int, media: str, headers: Mapping[str, str], body: bytes
) -> None:
    """Outside the contract: Flask's automatic OPTIONS answer, or a 404/405 problem."""
    if method.upper() == "OPTIONS" and status == 200:
        assert headers.get("Allow") and not body, f"{what}: an OPTIONS answer lists the methods"
        return
    assert (
        status in (404, 405) and media == "application/problem+json"
    ), f"{what}: not a problem ({media})"
    problem = json.loads(body)
    assert PROBLEM_KEYS <= problem.keys() and problem["status"] == status, f"{what}: {problem}"


class ContractClient(FlaskClient):
    """A Flask test client whose every response but event streams is checked against the
    contract (reading the body: open streams with ``buffered=False`` are left alone)."""

    def open(self, *args: Any, **kwargs: Any) -> TestResponse:
        response = super().open(*args, **kwargs)
        if response.mimetype != "text/event-stream":
            request = response.request
            check_response(
                request.method,
                request.path,
                response.status_code,
                response.headers,
                response.get_data(),
            )
        return response


class ContractSession(requests.Session):
    """A requests session whose every non-streamed response is checked against the contract."""

    def request(
        self, method: str | bytes, url: str | bytes, *args: Any, **kwargs: Any
    ) -> requests.Response:  # type: ignore[override]
        response = super().request(method, url, *args, **kwargs)
        if not kwargs.get("stream"):
            check_response(
                str(method), str(url), response.status_code, response.headers, response.content
            )
        return response
