"""CORS: which other origins' pages may call the API from a browser (``TABLETOP_CORS_ORIGINS``).

Off by default: with no origins configured nothing is registered and no answer carries
a CORS header, so browsers allow same-origin pages only.

With origins configured (comma-separated, exact ``scheme://host[:port]``; no ``*``):

- **Preflights** (``OPTIONS`` with ``Origin`` and ``Access-Control-Request-Method``) from
  an allowed origin are answered 204 at once with the methods and request headers a
  client needs (:data:`ALLOW_METHODS`, :data:`ALLOW_HEADERS`) and
  ``Access-Control-Max-Age``. They are answered before the rate limiter: a preflight
  costs no Redis and no work, and a client over its limit must still get the real
  request's 429 (with ``Retry-After`` readable) rather than an opaque network error.
- **Every other answer** to an allowed origin -- problem bodies, 304s and event streams
  included (Flask runs ``after_request`` for error handlers' answers too) -- carries
  ``Access-Control-Allow-Origin: <that origin>`` and ``Access-Control-Expose-Headers``
  (:data:`EXPOSE_HEADERS`: the headers a client reads beyond the CORS-safelisted ones).
- Every answer carries ``Vary: Origin``: what a cache stores for one origin must not be
  served to another.
- The play requests ``service.http.direct`` serves without Flask are served there only
  when they carry no ``Origin`` (it adds the ``Vary: Origin`` this hook would); one
  with an ``Origin`` goes through Flask and this hook.
- A disallowed origin, or no ``Origin`` at all, gets no CORS header; its preflight falls
  through to the app (Flask's automatic ``OPTIONS``), so the browser refuses the call.
- No credentials mode (``Access-Control-Allow-Credentials`` is never sent): the API
  authenticates with bearer tokens, never cookies.

Why not flask-cors (6.0.5, tried): with a single configured origin it sends that
origin's ``Access-Control-Allow-Origin`` on every answer, also to requests with no or
another ``Origin``, and sends no ``Vary: Origin``; and its preflights run after the rate
limiter. Each is fixable only by working around it; this module is the whole policy in
one place.

Answers gunicorn writes itself (a malformed request line, headers too large) carry no
CORS headers: they are written before any header is parsed, so the origin is unknown --
and a browser never sends such a request.
"""

from __future__ import annotations

import re

from flask import Flask, Response, request

ALLOW_METHODS = "GET, POST, DELETE, OPTIONS"
"""Every method the API serves (``HEAD`` and ``GET`` need no preflight)."""

ALLOW_HEADERS = (
    "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key, Last-Event-ID"
)
"""Request headers a client sends beyond the safelisted ones."""

EXPOSE_HEADERS = (
    "ETag, Location, Retry-After, Link, WWW-Authenticate, Tabletop-Export, Content-Disposition"
)
"""Answer headers a page may read: versions (``ETag``), new resources (``Location``),
limits (``Retry-After``; the API sends no other rate-limit headers), pages (``Link``),
why a token was refused, and what an export holds."""

MAX_AGE_S = 600
"""How long a browser may reuse a preflight's answer."""

_ORIGIN = re.compile(r"https?://(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*)(:[0-9]{1,5})?")


def parse_origins(raw: str) -> frozenset[str]:
    """The allowed origins of ``TABLETOP_CORS_ORIGINS`` (lower-cased, as browsers send
    them); ValueError for anything that is not an exact origin (``*``, ``null``, a path,
    a trailing slash), so a typo fails at start-up instead of opening the API."""
    origins = set()
    for part in raw.split(","):
        origin = part.strip()
        if not origin:
            continue
        if not _ORIGIN.fullmatch(origin):
            raise ValueError(
                f"TABLETOP_CORS_ORIGINS: {origin!r} is not an exact origin "
                "(scheme://host[:port], no path, no wildcard)"
            )
        origins.add(origin.lower())
    return frozenset(origins)


def without_origin(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``headers`` as :meth:`Cors.add_headers` leaves them for a request that carries no
    ``Origin``: only ``Vary`` gains ``Origin`` (for ``service.http.direct``, which serves
    such requests without Flask; the play answers always carry a ``Vary``)."""
    return [(name, value + ", Origin" if name == "Vary" else value) for name, value in headers]


class Cors:
    """The CORS policy of one app (see the module docstring)."""

    def __init__(self, origins: frozenset[str]) -> None:
        self.origins = origins

    def allowed_origin(self) -> str | None:
        """The request's ``Origin`` if it is allowed, else None."""
        origin = request.headers.get("Origin")
        return origin if origin is not None and origin in self.origins else None

    def preflight(self) -> Response | None:
        """A before-request hook: the answer to an allowed origin's preflight, else None."""
        if request.method != "OPTIONS" or "Access-Control-Request-Method" not in request.headers:
            return None
        origin = self.allowed_origin()
        if origin is None:
            return None
        response = Response(status=204)
        response.headers.update(
            {
                "Access-Control-Allow-Origin": origin,
                "Access-Control-Allow-Methods": ALLOW_METHODS,
                "Access-Control-Allow-Headers": ALLOW_HEADERS,
                "Access-Control-Max-Age": str(MAX_AGE_S),
            }
        )
        return response

    def add_headers(self, response: Response) -> Response:
        """An after-request hook: ``Vary: Origin`` always, the CORS headers for an
        allowed origin."""
        response.vary.add("Origin")
        origin = self.allowed_origin()
        if origin is not None and "Access-Control-Allow-Origin" not in response.headers:
            response.headers["Access-Control-Allow-Origin"] = origin
            response.headers["Access-Control-Expose-Headers"] = EXPOSE_HEADERS
        return response


def register(app: Flask, origins_setting: str) -> Cors | None:
    """Apply the policy of ``origins_setting`` (``Settings.cors_origins``) to ``app``;
    None (and nothing registered) when it names no origin. Register it before the rate
    limiter so that preflights are answered first."""
    origins = parse_origins(origins_setting)
    if not origins:
        return None
    cors = Cors(origins)

    # Plain functions, not bound methods: the app memoises ``ensure_sync`` per function.
    def preflight() -> Response | None:
        return cors.preflight()

    def add_headers(response: Response) -> Response:
        return cors.add_headers(response)

    app.before_request(preflight)
    app.after_request(add_headers)
    return cors
