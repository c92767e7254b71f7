"""Versions on the wire: ``ETag: "<version>"`` (strong), ``If-Match``, ``If-None-Match``,
``Idempotency-Key``.

A game's version is the number of its last event; every representation of a game
at a version (a view, the legal commands) carries it as a strong ETag. The viewer
matters too, so these responses also say ``Vary: Authorization``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from flask import request
from werkzeug.http import parse_etags

from events.model.defaults import MAX_IDEMPOTENCY_KEY
from service.http.problems import Problem

_STRONG_ETAG = re.compile(r'"(0|[1-9][0-9]{0,17})"')
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]+")


def etag(version: int) -> str:
    """The ETag of a game at ``version``."""
    return f'"{version}"'


def version_headers(version: int) -> dict[str, str]:
    """ETag and caching headers of a per-viewer representation at ``version``."""
    return {"ETag": etag(version), "Vary": "Authorization", "Cache-Control": "private, no-cache"}


def if_match_version(environ: Mapping[str, Any]) -> int | None:
    """The version named by ``If-Match`` in the WSGI ``environ`` (None if absent); 400
    unless one strong ETag."""
    header = environ.get("HTTP_IF_MATCH")
    if header is None:
        return None
    found = _STRONG_ETAG.fullmatch(header.strip())
    if found is None:
        raise Problem(
            400, "invalid_header", 'If-Match must be one version as a strong ETag, e.g. "12"'
        )
    return int(found.group(1))


def expected_version(environ: Mapping[str, Any], body_version: int | None) -> int | None:
    """The version a command acted on: ``If-Match`` or the body's ``expected_version``
    (both given and different: 400 ``version_mismatch``; neither: None)."""
    header_version = if_match_version(environ)
    if header_version is not None and body_version is not None and header_version != body_version:
        raise Problem(
            400, "version_mismatch", "If-Match and expected_version name different versions"
        )
    return header_version if header_version is not None else body_version


def not_modified(environ: Mapping[str, Any], version: int) -> bool:
    """Whether ``If-None-Match`` already names ``version`` (weak comparison, RFC 9110;
    Werkzeug's parser, as Flask's request uses)."""
    header = environ.get("HTTP_IF_NONE_MATCH")
    if header is None:
        return False  # the usual case: skip parsing an absent header into an ETags object
    return parse_etags(header).contains_weak(str(version))


def if_none_match_version() -> int | None:
    """The version in ``If-None-Match`` if it names exactly one, else None."""
    found = _STRONG_ETAG.fullmatch(
        (request.headers.get("If-None-Match") or "").strip().removeprefix("W/")
    )
    return int(found.group(1)) if found else None


def idempotency_key(environ: Mapping[str, Any]) -> str | None:
    """The ``Idempotency-Key`` header: None if absent, 400 unless 1..200 printable ASCII characters."""
    key = environ.get("HTTP_IDEMPOTENCY_KEY")
    if key is None:
        return None
    if not 0 < len(key) <= MAX_IDEMPOTENCY_KEY or not _PRINTABLE_ASCII.fullmatch(key):
        raise Problem(
            400,
            "invalid_header",
            f"Idempotency-Key must be 1 to {MAX_IDEMPOTENCY_KEY} printable ASCII characters",
        )
    return key
