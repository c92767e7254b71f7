"""Security headers on every answer of the API, the HTTP server's own error answers included.

- ``X-Content-Type-Options: nosniff``: browsers take the declared media type, so no
  JSON or text answer is ever sniffed into HTML or script.
- ``X-Frame-Options: DENY`` and CSP ``frame-ancestors 'none'``: no page may frame the
  API (clickjacking of ``/docs``).
- ``Content-Security-Policy: default-src 'none'``: an answer that a browser renders
  anyway may load nothing. ``/docs`` (server-rendered, no script, one inline
  stylesheet, no external assets) additionally allows inline styles.
- ``Referrer-Policy: no-referrer``: URLs (game ids) do not travel to other sites.

No module here imports Flask: the gunicorn worker (``service.http.server``) uses the
same headers for the answers it writes itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

API_CSP = "default-src 'none'; frame-ancestors 'none'"
DOCS_CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"

HEADERS: Mapping[str, str] = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": API_CSP,
    "Referrer-Policy": "no-referrer",
}
"""The headers every answer carries (``/docs`` with :data:`DOCS_CSP` instead)."""

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
