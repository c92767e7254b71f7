"""Reading requests at the boundary: JSON bodies and query strings through marshmallow.

Failure modes, each a :class:`~service.http.problems.Problem`:

- a body that is not ``application/json`` (or ``*/*+json``): 415 ``unsupported_media_type``;
- a body over ``max_body_bytes``: 413 ``body_too_large`` (Werkzeug enforces
  ``MAX_CONTENT_LENGTH`` while reading, also for chunked bodies);
- a body that is not JSON (or not UTF-8, or NaN/Infinity, or nested absurdly deep):
  400 ``malformed_json``;
- JSON that fails its schema (unknown field, missing field, wrong type, out of
  range): 422 ``invalid_body`` with ``errors`` per field;
- a query string that fails its schema (unknown parameter, not a number, out of
  range): 400 ``invalid_parameter`` with ``errors`` per parameter.

The split is deliberate: 400 when the request itself cannot be read as meant, 422
when a well-formed JSON body asks for something invalid (as the engine's rule
violations are 422 too).
"""

from __future__ import annotations

import json
from typing import Any

from flask import request
from marshmallow import Schema, ValidationError

from service.http import context
from service.http.problems import Problem


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def is_json_mimetype(mimetype: str) -> bool:
    """Whether a media type (parameters stripped) is JSON."""
    return mimetype == "application/json" or (
        mimetype.startswith("application/") and mimetype.endswith("+json")
    )


_DECODER = json.JSONDecoder(parse_constant=_no_constants)
"""Made once: ``json.loads`` with any option builds a new decoder per call."""


def _body_bytes() -> bytes:
    """The raw body. One ``read`` of the WSGI input when it has a Content-Length within
    the cap (the command hot path); otherwise Werkzeug's stream, which enforces the cap
    (413) and handles chunked bodies."""
    environ = request.environ
    length = environ.get("CONTENT_LENGTH", "")
    limit = request.max_content_length
    if length.isdigit() and limit is not None and int(length) <= limit and "HTTP_TRANSFER_ENCODING" not in environ:
        return environ["wsgi.input"].read(int(length))  # type: ignore[no-any-return]
    return request.get_data(cache=False)


def _loads(raw: bytes) -> Any:
    """``json.loads(raw, parse_constant=...)``: the same encodings accepted, the same errors."""
    return _DECODER.decode(raw.decode(json.detect_encoding(raw), "surrogatepass"))


def json_body(schema: Schema) -> dict[str, Any]:
    """The request body loaded through ``schema`` (see the module docstring for errors);
    through its ``load_fast`` where the schema has one (same result, fewer steps)."""
    if not is_json_mimetype(request.mimetype):
        raise Problem(415, "unsupported_media_type", "send the body as application/json")
    raw = _body_bytes()
    try:
        data = _loads(raw)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        raise Problem(400, "malformed_json", "the body is not valid JSON") from None
    try:
        return getattr(schema, "load_fast", schema.load)(data)  # type: ignore[no-any-return]
    except ValidationError as err:
        raise Problem(
            422, "invalid_body", "the body does not match its schema", errors=err.messages
        ) from None


def no_query() -> None:
    """400 ``invalid_parameter`` if the request has any query parameter (for endpoints
    that take none; cheaper than a schema on the hot paths)."""
    if request.args:
        errors = {name: ["Unknown field."] for name in request.args}
        raise Problem(
            400, "invalid_parameter", "this endpoint takes no query parameters", errors=errors
        )


def query(schema: Schema) -> dict[str, Any]:
    """The query string loaded through ``schema``; a repeated parameter is an error."""
    args = request.args
    repeated = sorted(k for k in args if len(args.getlist(k)) > 1)
    if repeated:
        errors = {k: ["given more than once"] for k in repeated}
        raise Problem(400, "invalid_parameter", "a query parameter is repeated", errors=errors)
    try:
        return schema.load(args.to_dict())  # type: ignore[no-any-return]
    except ValidationError as err:
        raise Problem(
            400, "invalid_parameter", "a query parameter is invalid", errors=err.messages
        ) from None


def check_page_limit(limit: int) -> None:
    """400 ``invalid_parameter`` if a page ``limit`` exceeds ``page_size_max``."""
    page_max = context.settings().page_size_max
    if limit > page_max:
        raise Problem(
            400,
            "invalid_parameter",
            f"limit is at most {page_max}",
            errors={"limit": [f"at most {page_max}"]},
        )
