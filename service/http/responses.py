"""JSON responses: compact, UTF-8, deterministic for the same document.

Deterministic matters: an idempotent retry returns the stored outcome document,
and serialising it again must give the very bytes of the first answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

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


class Answer(NamedTuple):
    """An answer as plain WSGI parts: the play routes build one, and both their Flask
    views (:func:`to_response`) and ``service.http.direct`` write it -- one source for
    the bytes and headers of either path."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes


def json_answer(text: str, headers: Mapping[str, str], status: int = 200) -> Answer:
    """JSON ``text`` (encoded already) with ``headers``, as Werkzeug would write it:
    ``Content-Type`` and ``Content-Length`` first."""
    body = text.encode()
    return Answer(
        status,
        [("Content-Type", "application/json"), ("Content-Length", str(len(body))), *headers.items()],
        body,
    )


def not_modified_answer(headers: Mapping[str, str]) -> Answer:
    """A 304 with ``headers`` and no body (nor any header about one)."""
    return Answer(304, list(headers.items()), b"")


def to_response(answer: Answer) -> Response:
    """``answer`` as a Flask response, for the views that build :class:`Answer`s."""
    # Werkzeug drops the default Content-Type of a 304 itself: the same headers as a direct 304.
    return Response(answer.body, answer.status, answer.headers)
