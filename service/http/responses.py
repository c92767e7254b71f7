"""JSON responses: compact, UTF-8, deterministic for the same document.

Deterministic matters: an idempotent retry returns the stored outcome document,
and serialising it again must give the very bytes of the first answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flask import Response

from service.app.documents import encode


def json_response(
    document: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """``document`` as an ``application/json`` response."""
    return json_text_response(encode(document), status, headers)


def json_text_response(
    text: str, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """JSON ``text`` encoded already (``service.app.documents.encode``) as a response."""
    # content_type, not mimetype: the same header, without Werkzeug working it out.
    return Response(text, status, headers, content_type="application/json")
