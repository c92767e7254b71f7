"""The REST API: a Flask app factory and one blueprint per area.

``create_app()`` builds everything from ``TABLETOP_*`` environment variables;
tests pass ``services`` (built with ``service.bootstrap.build``) or ``settings``.
Handlers are thin: parse (``body``, ``schemas``), call the application layer,
serialise (``responses``); errors become ``application/problem+json``
(``problems``). The contract is ``openapi.yaml`` at the project root, served at
``/openapi.yaml`` and rendered at ``/docs``.

Areas: ``catalogue`` (games, options, commands), ``lobby`` (create, list, join,
leave), ``players`` (totals), ``play`` (view, legal commands, commands),
``history`` (pages, SSE), ``audit`` (export, verify), ``ops`` (health, readiness,
metrics, docs).
"""

from __future__ import annotations

from collections.abc import Callable
from types import FunctionType
from typing import Any

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from events.projections import ProjectionReader
from service.bootstrap import Services, build
from service.http import (
    accounts,
    audit,
    catalogue,
    context,
    converters,
    cors,
    direct,
    history,
    lobby,
    metrics,
    ops,
    play,
    player_stream,
    players,
    problems,
    ratelimit,
    ratings,
    security,
    tickets,
    waits,
    webclient,
)
from service.settings import Settings


class _App(Flask):
    """Flask, answering ``ensure_sync`` from a memo: Flask asks it for every hook and
    view on every request, and ``inspect`` is not free on the command hot path. Its
    dispatch goes through ``direct`` once set (``service.http.direct``): innermost, so
    every WSGI middleware installed on ``wsgi_app`` (proxy fix, metrics, security
    headers) wraps both paths."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync: dict[Callable[..., Any], Callable[..., Any]] = {}
        self.direct: direct.DirectPlay | None = None

    def wsgi_app(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if self.direct is not None:
            return self.direct(environ, start_response)
        return super().wsgi_app(environ, start_response)

    def flask_wsgi_app(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        """Flask's own dispatch (what ``direct`` hands everything else to)."""
        return super().wsgi_app(environ, start_response)

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        if type(func) is not FunctionType:  # bound methods are new objects on each access
            return super().ensure_sync(func)
        sync = self._sync.get(func)
        if sync is None:
            sync = self._sync[func] = super().ensure_sync(func)
        return sync


def create_app(settings: Settings | None = None, services: Services | None = None) -> Flask:
    """The API app. ``services`` wins over ``settings`` (pass one of them, or neither to
    read the environment); TypeError if both are given."""
    if settings is not None and services is not None:
        raise TypeError("pass settings or services, not both (services carry their settings)")
    services = services or build(settings)
    settings = services.settings
    app = _App(__name__, static_folder=None)
    # One spelling per path, set before any rule is added (a rule takes it when bound).
    # Werkzeug's default answers a doubled slash with a 308 to the merged path, outside
    # every error handler: an HTML body, a Location built from the client's Host header,
    # and a POST the client sends again there. Now it is a 404 problem like any unknown path.
    app.url_map.merge_slashes = False
    app.url_map.converters.update(converters.CONVERTERS)  # one spelling per seat number too
    app.config["MAX_CONTENT_LENGTH"] = settings.max_body_bytes
    app.extensions[context.EXTENSION] = services
    app.extensions[context.READS] = ProjectionReader(
        services.redis, services.store, services.store.prefix
    )
    if settings.trusted_proxies:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.trusted_proxies)  # type: ignore[method-assign]
    metrics.register(app)  # first: the timer starts before any other hook can refuse
    cors.register(app, settings.cors_origins)  # before the limiter: preflights are free
    ratelimit.register(
        app, ratelimit.limiters(services.redis, services.store.prefix, settings, services.store.lane)
    )
    problems.register(app)
    security.register(app)
    waits.install(app, services)
    tickets.install(app, services)
    for blueprint in (catalogue.bp, lobby.bp, play.bp, history.bp, audit.bp, players.bp, ops.bp):
        app.register_blueprint(blueprint)
    app.register_blueprint(tickets.bp)
    app.register_blueprint(webclient.bp)  # the browser client at / (files in web/)
    app.register_blueprint(accounts.bp)  # issue 15: accounts and the player stream
    app.register_blueprint(player_stream.bp)
    player_stream.install(app, services)
    app.register_blueprint(ratings.bp)
    app.direct = direct.DirectPlay(app, app.flask_wsgi_app, services)  # last: sees every hook
    return app
