"""The three requests a client sends all game long, served without Flask's request machinery.

A playing client sends, turn after turn, ``GET /v1/games/{id}`` (its view),
``GET /v1/games/{id}/legal`` and ``POST /v1/games/{id}/commands``. :class:`DirectPlay`
is WSGI middleware in front of the Flask app that answers exactly those -- and nothing
else -- by calling the very functions the Flask views call (``service.http.play``:
``view_answer``, ``legal_answer``, ``command_answer``), after the same checks in the
same order: the game id's shape (404), then the general rate limit (429).

Why: Flask's request and app contexts, URL adapter and response object cost about
110 µs of a worker's CPU per request on the bench machine before any of our code runs
-- a fifth of a protocol request's work in process (``bench/protocol_bench.py``,
``docs/bench-rounds.md``, *Sixth round*). Here the route is one regular expression and
the answer a list of header tuples.

Guarantees:

- **The same answers.** Successful answers are built by the shared functions, so their
  bytes and headers are those of the Flask views (``tests/integration/
  test_http_direct.py`` compares both paths, errors included). Any exception -- a
  problem, a rule violation, a store outage, a bug -- is answered by Flask itself: a
  request context is pushed for it and Flask's error handlers and ``after_request``
  hooks run, exactly as if Flask had served the request from the start.
- **Only what it is sure of.** Anything else goes to Flask untouched: another method
  (``HEAD``, ``OPTIONS``), a query string (but ``/legal``'s ``form=compact`` or
  ``form=full``), a path Werkzeug would redirect or decode (a trailing slash, a
  non-ASCII id), a body whose media type is not plain JSON, and -- when CORS is on --
  any request that carries an ``Origin``.
- **No hook left out.** At startup it checks that the hooks Flask would run for these
  routes are the ones it runs (:data:`KNOWN_HOOKS`); a hook added later makes
  :func:`install` raise, so a new hook cannot be skipped silently.

Metrics: the route label is the Flask rule's text (left in the environ under
``service.http.metrics.ROUTE_KEY``), so both paths count under one series.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from werkzeug.http import HTTP_STATUS_CODES

from service.bootstrap import Services
from service.http import cors, games, metrics, play, ratelimit
from service.http.responses import Answer

_PATH = re.compile(r"/v1/games/([A-Za-z0-9_-]+)(/legal|/commands)?")
"""The three paths, with an ASCII id (anything else, Werkzeug decodes: Flask's)."""

_ROUTES: dict[tuple[str, str | None], str] = {
    ("GET", None): "/v1/games/<game_id>",
    ("GET", "/legal"): "/v1/games/<game_id>/legal",
    ("POST", "/commands"): "/v1/games/<game_id>/commands",
}
"""(method, path suffix) -> the Flask rule serving the same request."""

_LEGAL_QUERIES = {"": False, "form=full": False, "form=compact": True}
"""``/legal`` query strings served here -> compact form."""

_JSON_TYPES = frozenset({"application/json", "application/json; charset=utf-8", "application/json;charset=utf-8"})
"""Body media types served here (exact; any other spelling is Flask's to read)."""

KNOWN_HOOKS = {
    "before_request": {"register.<locals>.preflight", "_checker.<locals>.check"},
    "after_request": {"register.<locals>.add_headers"},
    "url_value_preprocessor": {"check_game_id"},
    "teardown_request": set(),
}
"""The hooks Flask runs for the play routes, by qualified name, that :class:`DirectPlay`
replays: the CORS preflight (``OPTIONS`` only: never served here), the general rate
limit, CORS headers (requests with an ``Origin`` are never served here), the game id
check."""

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class DirectPlay:
    """WSGI middleware: serves the play requests it is sure of, hands the rest to ``flask_wsgi``."""

    def __init__(self, app: Flask, flask_wsgi: WsgiApp, services: Services) -> None:
        """``flask_wsgi``: Flask's own dispatch of ``app``. Build it once every hook is
        registered (RuntimeError otherwise, see :func:`check_hooks`)."""
        check_hooks(app)
        self.app = app
        self.flask_wsgi = flask_wsgi
        self.services = services
        self.limiter = ratelimit.general(app)
        self.cors_on = bool(cors.parse_origins(services.settings.cors_origins))

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        route = self._route(environ)
        if route is None:
            return self.flask_wsgi(environ, start_response)
        rule, game_id, suffix = route
        environ[metrics.ROUTE_KEY] = rule
        try:
            answer = self._answer(environ, game_id, suffix)
        except Exception as error:  # noqa: BLE001 - every failure is answered by Flask's own handlers
            return self._flask_error(environ, start_response, error)
        headers = cors.without_origin(answer.headers) if self.cors_on else answer.headers
        start_response(f"{answer.status} {HTTP_STATUS_CODES[answer.status].upper()}", headers)
        return [answer.body]

    def _route(self, environ: dict[str, Any]) -> tuple[str, str, str | None] | None:
        """(Flask rule, game id, path suffix) of a request served here; None for Flask's."""
        found = _PATH.fullmatch(environ.get("PATH_INFO", ""))
        if found is None:
            return None
        game_id, suffix = found.groups()
        method = environ.get("REQUEST_METHOD")
        rule = _ROUTES.get((method, suffix))  # type: ignore[arg-type]
        if rule is None or (self.cors_on and "HTTP_ORIGIN" in environ):
            return None
        query = environ.get("QUERY_STRING", "")
        if query and (suffix != "/legal" or query not in _LEGAL_QUERIES):
            return None
        if method == "POST" and environ.get("CONTENT_TYPE", "").lower() not in _JSON_TYPES:
            return None
        return rule, game_id, suffix

    def _answer(self, environ: dict[str, Any], game_id: str, suffix: str | None) -> Answer:
        """The checks Flask's hooks make (in their order), then the shared answer."""
        games.check_game_id(None, {"game_id": game_id})  # the play blueprint's own check
        ratelimit.enforce_general(self.limiter, environ, game_id, self.services)
        if suffix is None:
            return play.view_answer(environ, game_id, self.services)
        if suffix == "/legal":
            compact = _LEGAL_QUERIES[environ.get("QUERY_STRING", "")]
            return play.legal_answer(environ, game_id, self.services, compact)
        return play.command_answer(environ, game_id, self.services)

    def _flask_error(
        self, environ: dict[str, Any], start_response: Callable[..., Any], error: Exception
    ) -> Iterable[bytes]:
        """``error`` answered as Flask answers it: its error handler, then its
        ``after_request`` hooks, in a request context of this request."""
        environ.pop(metrics.ROUTE_KEY, None)  # the metrics read the rule from Flask's request now
        with self.app.request_context(environ):
            try:
                returned = self.app.handle_user_exception(error)
            except Exception as unhandled:  # noqa: BLE001 - as Flask does: a 500 by its handler
                response = self.app.handle_exception(unhandled)
            else:
                response = self.app.finalize_request(returned)
            return response(environ, start_response)


def hooks_of(app: Flask) -> dict[str, set[str]]:
    """The qualified names of the hooks Flask runs for the play blueprint's routes."""
    scopes = (None, "play")
    return {
        "before_request": {f.__qualname__ for s in scopes for f in app.before_request_funcs.get(s, ())},
        "after_request": {f.__qualname__ for s in scopes for f in app.after_request_funcs.get(s, ())},
        "url_value_preprocessor": {
            f.__qualname__ for s in scopes for f in app.url_value_preprocessors.get(s, ())
        },
        "teardown_request": {f.__qualname__ for s in scopes for f in app.teardown_request_funcs.get(s, ())},
    }


def check_hooks(app: Flask) -> None:
    """RuntimeError if ``app`` has a hook for the play routes that :class:`DirectPlay`
    does not replay (see :data:`KNOWN_HOOKS`)."""
    unknown = {
        kind: sorted(names - KNOWN_HOOKS[kind])
        for kind, names in hooks_of(app).items()
        if names - KNOWN_HOOKS[kind]
    }
    if unknown:
        raise RuntimeError(f"service.http.direct does not replay these hooks of the play routes: {unknown}")
