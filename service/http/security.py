"""Security headers on every answer of the API, the HTTP server's own error answers included.

- ``X-Content-Type-Options: nosniff``: browsers take the declared media type, so no
  JSON or text answer is ever sniffed into HTML or script.
- ``X-Frame-Options: DENY`` and CSP ``frame-ancestors 'none'``: no page may frame the
  API (clickjacking of ``/docs``).
- ``Content-Security-Policy: default-src 'none'``: an answer that a browser renders
  anyway may load nothing. ``/docs`` (server-rendered, no script, one inline
  stylesheet, no external assets) additionally allows inline styles.
- ``Referrer-Policy: no-referrer``: URLs (game ids) do not travel to other sites.

The web client's files (``service.http.webclient``) bring their own CSP, which lets
this origin's scripts and styles run; the headers here are only set where an answer
has none of its own, so every other answer keeps ``default-src 'none'``.

The values live in ``service.runner.server`` (the gunicorn worker writes the same
headers on the answers it makes itself, and may not import the app).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.runner.server import API_CSP, DOCS_CSP, SECURITY_HEADERS

HEADERS: Mapping[str, str] = SECURITY_HEADERS
"""The headers every answer carries (``/docs`` with :data:`DOCS_CSP` instead)."""

__all__ = ["API_CSP", "DOCS_CSP", "HEADERS", "register"]

DOCS_PATHS = frozenset({"/docs"})


def _add(response: Any) -> Any:
    from flask import request

    headers = response.headers
    for name, value in HEADERS.items():
        headers.setdefault(name, value)
    if request.path in DOCS_PATHS:
        headers["Content-Security-Policy"] = DOCS_CSP
    return response


def register(app: Any) -> None:
    """Add :data:`HEADERS` to every response of ``app`` (errors too: Flask runs
    ``after_request`` for the responses of error handlers as well)."""
    app.after_request(_add)
