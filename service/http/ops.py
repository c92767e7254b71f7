"""Operations: liveness, readiness (Redis), Prometheus metrics, the contract and its docs."""

from __future__ import annotations

from flask import Blueprint, Response, render_template

from service.app.errors import Forbidden, Unauthenticated
from service.http import auth, body, context, metrics, spec
from service.http.problems import Problem
from service.http.responses import json_response

bp = Blueprint("ops", __name__)

NO_CACHE = {"Cache-Control": "no-store"}


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
        context.services().redis.ping()
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
