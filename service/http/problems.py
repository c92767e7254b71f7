"""Errors as ``application/problem+json`` (RFC 9457), with a stable ``code``.

Every error response of the API comes from here: typed errors of the application
layer and the engine's ``RuleViolation`` are mapped to a status; HTTP errors of
Werkzeug (404, 405, 413, ...) get a problem body too; anything unexpected becomes
a 500 that says nothing about internals (the traceback goes to the log only).

A problem body holds ``type`` (``PROBLEM_BASE`` + code, a stable identifier),
``title`` (fixed per code), ``status``, ``detail`` (for people), ``code``, and per
case ``current_version`` (409), ``errors`` (per-field messages) or ``details``
(the engine's context, e.g. the allowed range of an option). Messages and details
come from the engine and the application, which never put hidden facts in them.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, current_app, request
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError as RedisResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from werkzeug.exceptions import HTTPException, MethodNotAllowed, NotFound, RequestEntityTooLarge

from engine.errors import RuleViolation
from events.model.errors import ArchiveUnavailable
from events.redis_adapter.refusals import Refusal, write_refusal
from service.app import errors as app_errors
from service.http import metrics

PROBLEM_BASE = "https://tabletop.dev/problems/"
"""Base of every problem ``type`` URI; the code is appended."""

PROBLEM_MEDIA_TYPE = "application/problem+json"

STATUS_OF: Mapping[type[app_errors.AppError], int] = {
    app_errors.GameNotFound: 404,
    app_errors.Unauthenticated: 401,
    app_errors.Forbidden: 403,
    app_errors.StaleVersion: 409,
    app_errors.VersionRequired: 428,
    app_errors.IdempotencyMismatch: 422,
    app_errors.NotFinished: 409,
    app_errors.TooManyOpenGames: 429,
    app_errors.TooManyUnfinishedGames: 429,
    app_errors.NameRegistered: 409,
    app_errors.NameReserved: 409,
    app_errors.AlreadySeated: 409,
    app_errors.NameRequired: 422,
    app_errors.NotSeated: 403,
    app_errors.InviteRequired: 403,
    app_errors.NotAPlayer: 401,
    app_errors.ServerBusy: 503,
}
"""HTTP status of each application error (anything else derived from AppError: 400)."""

HTTP_CODES: Mapping[int, str] = {
    400: "bad_request",
    408: "request_timeout",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
}
"""Codes of Werkzeug's HTTP errors (others: ``http_<status>``)."""

log = logging.getLogger(__name__)


class Problem(Exception):
    """An error the HTTP layer itself detects (bad JSON, bad header, rate limit, ...)."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        headers: Mapping[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = dict(headers or {})
        self.extra = extra


def title_of(code: str) -> str:
    """The fixed title of a code: ``not_your_turn`` -> ``Not your turn``."""
    return code.replace("_", " ").capitalize().replace("json", "JSON")


def problem_response(
    status: int, code: str, detail: str, headers: Mapping[str, str] | None = None, **extra: Any
) -> Response:
    """A problem+json response."""
    body: dict[str, Any] = {
        "type": PROBLEM_BASE + code,
        "title": title_of(code),
        "status": status,
        "detail": detail,
        "code": code,
    }
    body.update({k: v for k, v in extra.items() if v is not None})
    response = Response(
        json.dumps(body, separators=(",", ":")), status, mimetype=PROBLEM_MEDIA_TYPE
    )
    response.headers.update(headers or {})
    return response


def _problem(error: Problem) -> Response:
    return problem_response(error.status, error.code, error.detail, error.headers, **error.extra)


def _app_error(error: app_errors.AppError) -> Response:
    status = STATUS_OF.get(type(error), 400)
    headers: dict[str, str] = {}
    extra: dict[str, Any] = {}
    if isinstance(error, (app_errors.Unauthenticated, app_errors.NotAPlayer)):
        headers["WWW-Authenticate"] = 'Bearer realm="tabletop"'
    if isinstance(error, (app_errors.TooManyOpenGames, app_errors.TooManyUnfinishedGames, app_errors.ServerBusy)):
        headers["Retry-After"] = str(error.retry_after_s)
    if isinstance(error, app_errors.StaleVersion):
        metrics.CONFLICTS.inc()
        extra["current_version"] = error.current_version
    return problem_response(status, error.code, error.message, headers, **extra)


def _rule_violation(error: RuleViolation) -> Response:
    metrics.RULE_VIOLATIONS.labels(error.code).inc()
    return problem_response(422, error.code, error.message, details=error.details or None)


def _http_error(error: HTTPException) -> Response:
    status = error.code or 500
    headers: dict[str, str] = {}
    detail = error.description or ""
    if isinstance(error, MethodNotAllowed) and error.valid_methods:
        headers["Allow"] = ", ".join(sorted(error.valid_methods))
        detail = f"{request.method} is not allowed here; allowed: {headers['Allow']}"
    elif isinstance(error, NotFound):
        detail = "no such endpoint; the API is described at /docs"
    elif isinstance(error, RequestEntityTooLarge):
        detail = f"the body is larger than {current_app.config['MAX_CONTENT_LENGTH']} bytes"
    code = HTTP_CODES.get(status, f"http_{status}")
    return problem_response(status, code, detail or title_of(code), headers)


def _store_down(error: Exception) -> Response:
    log.warning("redis unavailable: %r", error)
    return problem_response(
        503, "store_unavailable", "the event store is unavailable; try again", {"Retry-After": "1"}
    )


def _redis_error(error: Exception) -> Response:
    """Redis answered with an error: a refused write is a 503, anything else a bug.

    Redis refuses a write and writes nothing (``events.redis_adapter.refusals``): at
    full memory (``maxmemory-policy noeviction``, docs/operations.md: it refuses writes
    rather than evicting history) -- 503 ``store_full``; when it cannot persist (a full
    or failing disk: ``MISCONF``) or is a read-only replica -- 503 ``store_unwritable``.
    Reads go on meanwhile (the rate limiter fails open on a refused counter)."""
    refusal = write_refusal(error)
    if refusal is None:
        return _unexpected(error)
    if refusal is Refusal.FULL:
        log.error("redis is out of memory (noeviction refused a write): %r", error)
        return problem_response(
            503, "store_full", "the event store is full; try again later", {"Retry-After": "60"}
        )
    log.error("redis refused a write (it cannot persist, or is a replica): %r", error)
    return problem_response(
        503,
        "store_unwritable",
        "the event store cannot take writes now (its disk is full or failing); nothing was written; try again later",
        {"Retry-After": "10"},
    )


def _unexpected(error: Exception) -> Response:
    log.exception("unhandled error")
    return problem_response(
        500, "internal_error", "an unexpected error occurred; it has been logged"
    )


def register(app: Flask) -> None:
    """Install the error handlers on ``app``."""
    app.register_error_handler(Problem, _problem)
    app.register_error_handler(app_errors.AppError, _app_error)
    app.register_error_handler(RuleViolation, _rule_violation)
    app.register_error_handler(HTTPException, _http_error)
    app.register_error_handler(RedisConnectionError, _store_down)
    app.register_error_handler(ArchiveUnavailable, _store_down)
    app.register_error_handler(RedisTimeoutError, _store_down)
    app.register_error_handler(RedisResponseError, _redis_error)
    app.register_error_handler(Exception, _unexpected)
