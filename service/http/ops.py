"""Operations: liveness, readiness (Redis), Prometheus metrics, the contract and its docs."""

from __future__ import annotations

from typing import Any

import redis
from flask import Blueprint, Response, current_app, render_template
from redis.backoff import NoBackoff
from redis.retry import Retry

from service.app.errors import Forbidden, Unauthenticated
from service.http import auth, body, context, metrics, spec
from service.http.problems import Problem
from service.http.responses import json_response

bp = Blueprint("ops", __name__)

NO_CACHE = {"Cache-Control": "no-store"}

READY_TIMEOUT_S = 2.0
"""How long ``/readyz`` waits for Redis: a Redis that accepts and never answers (stopped,
wedged) makes it 503 ``not_ready`` then, not a probe that waits as long as Redis hangs
(the store's own connections have no read timeout: blocking reads wait by design)."""

_PING_CLIENT = "tabletop.readyz_client"


@bp.get("/healthz")
def healthz() -> Response:
    """The process is up (no dependency is checked: a restart would not fix Redis)."""
    body.no_query()
    return json_response({"status": "ok"}, headers=NO_CACHE)


@bp.get("/readyz")
def readyz() -> Response:
    """The process can serve: Redis answers a PING."""
    body.no_query()
    try:
        _ping_client().ping()
    except Exception:  # noqa: BLE001 - any failure means "not ready"; the reason goes to the log
        raise Problem(
            503, "not_ready", "the event store does not answer", {"Retry-After": "1"}
        ) from None
    return json_response({"status": "ready"}, headers=NO_CACHE)


@bp.get("/metrics")
def prometheus() -> Response:
    """Prometheus metrics, for the operator only: the admin token (401 without a token,
    403 with another; 403 too when no admin token is configured). They describe every
    game's traffic and are costly to compute under several workers."""
    body.no_query()
    token = auth.bearer_token()
    if token is None:
        raise Unauthenticated("the metrics need the admin token (Authorization: Bearer <token>)")
    if not auth.is_admin(token):
        raise Forbidden("the metrics need the admin token")
    return metrics.exposition()


@bp.get("/openapi.yaml")
def openapi() -> Response:
    """The OpenAPI 3.1 contract, as written (generate clients from it)."""
    return Response(
        spec.text(), mimetype="application/yaml", headers={"Cache-Control": "public, max-age=300"}
    )


@bp.get("/docs")
def docs() -> Response:
    """A readable page of the contract, rendered from the same file (no external assets)."""
    html = render_template("docs.html", spec=spec.document(), operations=spec.operations())
    return Response(html, mimetype="text/html")


def _ping_client() -> Any:
    """The store's Redis with :data:`READY_TIMEOUT_S` on connecting and reading: a pool of
    its own, made on first use with the store client's connection settings. A cluster
    client is used as it is (its nodes' pools are its own)."""
    client = current_app.extensions.get(_PING_CLIENT)
    if client is None:
        client = context.services().redis
        pool = getattr(client, "connection_pool", None)
        if isinstance(pool, redis.ConnectionPool):
            kwargs = {
                **pool.connection_kwargs,
                "socket_timeout": READY_TIMEOUT_S,
                "socket_connect_timeout": READY_TIMEOUT_S,
                "retry": Retry(NoBackoff(), 0),  # one try: retries would multiply the bound
            }
            bounded = redis.ConnectionPool(connection_class=pool.connection_class, **kwargs)
            client = redis.Redis(connection_pool=bounded)
        current_app.extensions[_PING_CLIENT] = client
    return client
