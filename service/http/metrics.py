"""Prometheus metrics: requests, latency, commands, conflicts, rule violations, rate limits.

Under gunicorn with several worker processes, set ``PROMETHEUS_MULTIPROC_DIR`` to an
empty, writable directory in the environment of the gunicorn master *before it
starts* (prometheus_client decides at import time where values live), and load
``service.runner.gunicorn_config`` so that a dead worker's files are marked dead.
``/metrics`` then aggregates every worker. Without the variable the process's own
registry is served (one process, e.g. tests or ``flask run``).

Routes are labelled by their URL rule (``/v1/games/<game_id>``), never by the raw
path, so label cardinality stays bounded.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

from service.runner import pid

pid.fast_multiprocess_values()  # before the metrics below are made

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

REQUESTS = Counter(
    "tabletop_http_requests_total", "HTTP requests answered", ["method", "route", "status"]
)
LATENCY = Histogram(
    "tabletop_http_request_duration_seconds",
    "Time to produce a response (for streams: until the stream starts)",
    ["method", "route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
COMMANDS = Counter("tabletop_commands_total", "Game commands accepted", ["game"])
_commands: dict[str, Any] = {}
"""game -> its COMMANDS child (``labels()`` is not free: see ``_children``); bounded by the
number of games the engine knows."""


def count_command(game: str) -> None:
    """One more accepted command of ``game`` (a game name, from the engine's registry)."""
    child = _commands.get(game)
    if child is None:
        child = _commands[game] = COMMANDS.labels(game)
    child.inc()
CONFLICTS = Counter("tabletop_version_conflicts_total", "Commands refused for a stale version")
RULE_VIOLATIONS = Counter(
    "tabletop_rule_violations_total", "Requests refused by a game or table rule", ["code"]
)
RATE_LIMITED = Counter("tabletop_rate_limited_total", "Requests refused by the rate limit")


ROUTE_KEY = "tabletop.route"
"""Where ``service.http.direct`` leaves the rule of a request it serves (Flask's request,
which names the rule otherwise, is never built then)."""

_children: dict[tuple[str, ...], tuple[Any, Any]] = {}
"""(method, route, status) -> (latency, requests) children: ``labels()`` takes a lock and
builds its key on every call, which shows on the command path. Bounded: routes are URL
rules, methods and statuses few."""


def _series(method: str, route: str, status: str) -> tuple[Any, Any]:
    key = (method, route, status)
    series = _children.get(key)
    if series is None:
        series = _children[key] = (LATENCY.labels(method, route), REQUESTS.labels(*key))
    return series


class Timing:
    """WSGI middleware: times and counts every answer of the app, from the moment the
    request reaches it until the answer starts (for streams: until the stream starts).

    Why WSGI and not ``before_request``/``after_request``: those two hooks, with their
    context-local lookups (``g``, ``request``), were about 3 % of a command's
    instructions (callgrind, ``bench/protocol_bench.py``'s protocol in process); here it
    is one closure. The route label is the matched URL rule, read from the request
    Flask keeps in the environ while the answer starts, or from :data:`ROUTE_KEY`
    ("unmatched" without either)."""

    def __init__(self, app: Callable[..., Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        started = time.perf_counter()

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            route = environ.get(ROUTE_KEY)
            if route is None:
                rule = getattr(environ.get("werkzeug.request"), "url_rule", None)
                route = rule.rule if rule is not None else "unmatched"
            latency, requests = _series(environ["REQUEST_METHOD"], route, status[:3])
            latency.observe(time.perf_counter() - started)
            requests.inc()
            return start_response(status, headers, exc_info)

        return self.app(environ, start)


def exposition() -> Response:
    """The metrics in Prometheus' text format (all workers in multiprocess mode)."""
    registry = REGISTRY
    if os.environ.get(MULTIPROC_ENV):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return Response(generate_latest(registry), mimetype=None, content_type=CONTENT_TYPE_LATEST)


def register(app: Flask) -> None:
    """Time and count every request of ``app`` (see :class:`Timing`)."""
    app.wsgi_app = Timing(app.wsgi_app)  # type: ignore[method-assign]
