"""Reading requests at the boundary: JSON bodies and query strings through marshmallow.

Failure modes, each a :class:`~service.http.problems.Problem`:

- a body that is not ``application/json`` (or ``*/*+json``): 415 ``unsupported_media_type``;
- a body over ``max_body_bytes``: 413 ``body_too_large``, however it is sent -- a
  ``Content-Length`` over the cap is refused before reading, a chunked body is read
  up to one byte past the cap and refused then (never silently cut at the cap);
- a body that is not UTF-8 -- UTF-16 or UTF-32 (with or without a BOM), a UTF-8
  BOM, invalid bytes, or an escaped lone surrogate (``"\\ud800"``: no text can hold
  it) -- 400 ``invalid_encoding``;
- a body that is not one JSON value (a syntax error, trailing data after the value,
  NaN/Infinity) or nests arrays and objects deeper than :data:`MAX_DEPTH` levels: 400
  ``malformed_json``;
- an object with a key twice (which one would count?): 400 ``duplicate_key``;
- a whole number spelled with a fraction or exponent (``2160.0``) is that integer, as
  JSON Schema reads it (the contract's ``type: integer`` admits it);
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
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from flask import request
from marshmallow import Schema, ValidationError
from werkzeug.http import parse_options_header

from service.http import context
from service.http.problems import Problem


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def is_json_mimetype(mimetype: str) -> bool:
    """Whether a media type (parameters stripped) is JSON."""
    return mimetype == "application/json" or (
        mimetype.startswith("application/") and mimetype.endswith("+json")
    )


class BadBody(ValueError):
    """A body that is not strict UTF-8 JSON; ``code`` says why (see the module docstring)."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


class _DuplicateKey(Exception):
    """Raised by the pairs hook; not a ValueError, so the decoder lets it through."""


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        raise _DuplicateKey
    return obj


_WHOLE_LIMIT = 2**63
"""Largest magnitude a whole JSON number in a float spelling is read as an integer."""


def _number(text: str) -> int | float:
    """A JSON number with a fraction or exponent: the integer it equals if it is whole
    (``2160.0``, ``2.16e3``), else a float. JSON Schema -- so the contract -- counts a
    whole number as an integer whatever its spelling; no request field is a fraction.
    Decimal keeps it exact (``9007199254740993.0`` is not a float); the magnitude
    check first keeps a huge exponent from building a huge integer."""
    value = float(text)
    if value != value or abs(value) > _WHOLE_LIMIT:  # NaN cannot come from the scanner
        return value
    exact = Decimal(text)
    return int(exact) if exact == exact.to_integral_value() else value


_DECODER = json.JSONDecoder(
    parse_constant=_no_constants, object_pairs_hook=_unique_pairs, parse_float=_number
)
"""Made once: ``json.loads`` with any option builds a new decoder per call. The pairs
hook costs one call per object -- a few per command body -- and is the only way the
C scanner can tell a repeated key."""

_LENIENT = json.JSONDecoder(parse_constant=_no_constants, parse_float=_number)
"""Used only once a duplicate key was seen: is the rest of the body valid JSON at all?"""

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
"""``\uD800``..``\uDFFF``: where a lone surrogate could come from. Bodies without one
(nearly all) skip the walk over every string."""


MAX_DEPTH = 64
"""Most levels of nested arrays and objects a body may have (a command body has three or
four). Deeper is 400 ``malformed_json`` on every interpreter: without this cap the
answer hung on the decoder's recursion limit (CPython 3.11 refused about 950 levels
with ``RecursionError``; 3.13 reads 8,000 and more, which then failed the schema with
422 ``invalid_body`` -- another code for the same body)."""


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects more than ``limit`` levels (``[]`` is one
    level, a scalar none). Iterative: the value may be nested nearly as deep as the
    recursion limit allows."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = item.values()
        elif not isinstance(item, list):
            continue
        if level > limit:
            return True
        stack.extend((child, level + 1) for child in item)
    return False


def _too_deep(text: str, data: Any) -> bool:
    """Whether the decoded body ``data`` of ``text`` nests deeper than :data:`MAX_DEPTH`.
    Counting brackets first (two C loops over the text, under 0.2 µs for a command body)
    spares the walk on every body that could not be that deep."""
    return text.count("[") + text.count("{") > MAX_DEPTH and _deeper_than(data, MAX_DEPTH)


def _body_bytes(environ: Mapping[str, Any], limit: int) -> bytes:
    """The raw body, never more than the cap ``limit``: 413 ``body_too_large`` past it.
    One ``read`` of the WSGI input when it has a Content-Length within the cap (the
    command hot path); a chunked body is read up to one byte past the cap."""
    length = environ.get("CONTENT_LENGTH", "")
    stream = environ["wsgi.input"]
    if "HTTP_TRANSFER_ENCODING" not in environ:
        if not length:
            return b""
        if not length.isdigit():
            raise Problem(400, "bad_request", "Content-Length is not a number")
        if int(length) > limit:
            raise _too_large(limit)
        return stream.read(int(length))  # type: ignore[no-any-return]
    # Chunked (gunicorn has decoded the chunks; the stream ends with the body).
    parts: list[bytes] = []
    size = 0
    while size <= limit:
        part = stream.read(limit + 1 - size)
        if not part:
            break
        parts.append(part)
        size += len(part)
    if size > limit:
        raise _too_large(limit)
    return b"".join(parts)


def _too_large(limit: int) -> Problem:
    return Problem(413, "body_too_large", f"the body is larger than {limit} bytes")


def _loads(raw: bytes) -> Any:
    """The one JSON value of ``raw``, strict: UTF-8 only (no BOM), no lone surrogates,
    no duplicate keys, at most :data:`MAX_DEPTH` levels, nothing after the value;
    BadBody otherwise. The checks cost nothing on an ordinary body: the encoding sniff
    looks at four bytes, the pairs hook runs in the C scanner, the depth walk only when
    the text holds more brackets than the cap, the surrogate walk only when an escape
    could be one.
    ``tests/unit/test_http_schemas.py`` checks it refuses exactly what a plain,
    step-by-step reference refuses."""
    if json.detect_encoding(raw) != "utf-8":  # UTF-16/32 by their NULs, or a BOM
        raise BadBody("invalid_encoding", "send the body as UTF-8 without a byte order mark")
    try:
        text = raw.decode("utf-8")  # strict: refuses invalid bytes and encoded surrogates
    except UnicodeDecodeError:
        raise BadBody("invalid_encoding", "the body is not valid UTF-8") from None
    duplicate = False
    try:
        data = _DECODER.decode(text)
    except (ValueError, RecursionError):
        raise BadBody("malformed_json", "the body is not one valid JSON value") from None
    except _DuplicateKey:
        duplicate = True  # is the rest of the body valid JSON, within the depth cap?
        try:
            data = _LENIENT.decode(text)
        except (ValueError, RecursionError):
            raise BadBody("malformed_json", "the body is not one valid JSON value") from None
    if _too_deep(text, data):
        detail = f"the body nests arrays and objects deeper than {MAX_DEPTH} levels"
        raise BadBody("malformed_json", detail)
    if duplicate:
        raise BadBody("duplicate_key", "an object in the body has the same key twice")
    if _SURROGATE_ESCAPE.search(text) and _has_lone_surrogate(data):
        raise BadBody("invalid_encoding", "the body holds a lone surrogate (not text)")
    return data


def _has_lone_surrogate(value: Any) -> bool:
    """Whether any string (key or value) in ``value`` holds a lone surrogate. Iterative:
    a value the decoder accepted may be nested nearly as deep as the recursion limit."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def json_body(schema: Schema) -> dict[str, Any]:
    """The request body loaded through ``schema`` (see the module docstring for errors);
    through its ``load_fast`` where the schema has one (same result, fewer steps)."""
    return json_body_in(request.environ, schema, request.max_content_length or 0)


def json_body_in(environ: Mapping[str, Any], schema: Schema, limit: int) -> dict[str, Any]:
    """:func:`json_body` of a WSGI ``environ`` with a body cap of ``limit`` bytes (for
    ``service.http.direct``)."""
    if not is_json_mimetype(mimetype_of(environ)):
        raise Problem(415, "unsupported_media_type", "send the body as application/json")
    raw = _body_bytes(environ, limit)
    try:
        data = _loads(raw)
    except BadBody as bad:
        raise Problem(400, bad.code, bad.detail) from None
    try:
        return getattr(schema, "load_fast", schema.load)(data)  # type: ignore[no-any-return]
    except ValidationError as err:
        raise Problem(
            422, "invalid_body", "the body does not match its schema", errors=err.messages
        ) from None


def mimetype_of(environ: Mapping[str, Any]) -> str:
    """The media type of the body, parameters stripped, lower case: what Werkzeug's
    ``Request.mimetype`` reads (its parser, skipped for the usual plain JSON type)."""
    content_type = environ.get("CONTENT_TYPE", "")
    if content_type == "application/json":
        return content_type
    return parse_options_header(content_type)[0].lower()


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
