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

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from service.runner.server import API_CSP, DOCS_CSP, SECURITY_HEADERS

HEADERS: Mapping[str, str] = SECURITY_HEADERS
"""The headers every answer carries (``/docs`` with :data:`DOCS_CSP` instead)."""

__all__ = ["API_CSP", "DOCS_CSP", "HEADERS", "register"]

DOCS_PATHS = frozenset({"/docs"})

_NAMES = frozenset(name.lower() for name in HEADERS)
_ALL = [(name, value) for name, value in HEADERS.items()]
_CSP = "content-security-policy"


class SecurityHeaders:
    """WSGI middleware: adds each of :data:`HEADERS` that an answer lacks (so the web
    client's own CSP stands), and :data:`DOCS_CSP` on ``/docs``.

    Why WSGI and not ``after_request``: Werkzeug's ``Headers.setdefault`` scans and
    validates the whole header list once per name, a measurable share of a command's
    CPU (``bench/protocol_bench.py``); here it is one pass over plain tuples. It also
    reaches every answer the app makes, error answers included."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        docs = environ.get("PATH_INFO") in DOCS_PATHS

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            present = {name.lower() for name, _ in headers}
            if docs:
                headers = [(n, v) for n, v in headers if n.lower() != _CSP]
                headers.append(("Content-Security-Policy", DOCS_CSP))
                present.add(_CSP)
            if present.isdisjoint(_NAMES):
                headers.extend(_ALL)
            else:
                headers.extend((n, v) for n, v in _ALL if n.lower() not in present)
            return start_response(status, headers, exc_info)

        return self.app(environ, start)


def register(app: Any) -> None:
    """Add :data:`HEADERS` to every response of ``app`` (errors too: the middleware
    sees every answer the app gives), as WSGI middleware (see :class:`SecurityHeaders`)."""
    app.wsgi_app = SecurityHeaders(app.wsgi_app)
