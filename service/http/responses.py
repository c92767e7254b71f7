"""JSON responses: compact, UTF-8, deterministic for the same document.

Deterministic matters: an idempotent retry returns the stored outcome document,
and serialising it again must give the very bytes of the first answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from flask import Response


def json_response(
    document: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """``document`` as an ``application/json`` response."""
    body = json.dumps(document, separators=(",", ":"), ensure_ascii=False)
    response = Response(body, status, mimetype="application/json")
    if headers:
        response.headers.update(headers)
    return response
