"""Who is calling: a seat (its bearer token), a spectator (no token) or the operator.

- Seat tokens come as ``Authorization: Bearer <token>``; the application layer
  checks them against the stored hash (``service.tokens``) -- a token acts only for
  its own seat of its own game.
- No ``Authorization`` header: a spectator, who reads public views only.
- The admin token (``TABLETOP_ADMIN_TOKEN``, compared in constant time) opens the
  operator's reads: the full history of a running game and its complete export.
  It holds no seat, so it can never send a command.

A malformed header or a token that fits no seat is 401 ``unauthenticated`` with
``WWW-Authenticate: Bearer`` -- never a silent downgrade to spectator.
"""

from __future__ import annotations

import hashlib
import hmac

from flask import g, request

from events.redaction import ADMIN, SPECTATOR, Viewer
from service.app.errors import Forbidden, Unauthenticated
from service.http import context

_UNSET = object()


def bearer_token() -> str | None:
    """The bearer token of the request (None without an Authorization header)."""
    cached = g.get("bearer_token", _UNSET)
    if cached is not _UNSET:
        return cached  # type: ignore[return-value]
    header = request.headers.get("Authorization")
    token = None
    if header is not None:
        scheme, _, value = header.strip().partition(" ")
        token = value.strip()
        if scheme.lower() != "bearer" or not token:
            raise Unauthenticated("send the token as 'Authorization: Bearer <token>'")
    g.bearer_token = token
    return token


def is_admin(token: str | None) -> bool:
    """Whether ``token`` is the configured admin token (never, if none is configured)."""
    admin = context.settings().admin_token
    return bool(admin) and token is not None and hmac.compare_digest(token.encode(), admin.encode())


def caller_seat(game_id: str) -> int | None:
    """The caller's seat in ``game_id``: None for a spectator or the admin; 401 for a bad token."""
    token = bearer_token()
    if token is None or is_admin(token):
        return None
    return context.application().seat_of(game_id, token)


def required_token() -> str:
    """The caller's seat token, for commands and leaving: 401 without one, 403 for the admin."""
    token = bearer_token()
    if token is None:
        raise Unauthenticated("a seat token is required (Authorization: Bearer <token>)")
    if is_admin(token):
        raise Forbidden("the admin token holds no seat and cannot act in a game")
    return token


def history_viewer(game_id: str) -> Viewer:
    """Whom to redact a history for: the admin sees everything, a seat its own part."""
    token = bearer_token()
    if is_admin(token):
        return ADMIN
    seat = caller_seat(game_id)
    return SPECTATOR if seat is None else seat


_buckets: dict[str, str] = {}
"""Authorization header -> its bucket: clients send the same header again and again.
Only headers as short as real ones are kept, at most ``_BUCKETS_KEPT`` of them, so
made-up headers cannot grow it beyond a few megabytes."""
_BUCKETS_KEPT, _HEADER_KEPT = 10_000, 200


def rate_limit_bucket() -> str:
    """The rate-limit bucket of the request: its token's hash, else the client's address."""
    header = request.headers.get("Authorization")
    if header:
        bucket = _buckets.get(header)
        if bucket is None:
            bucket = "t:" + hashlib.sha256(header.strip().encode()).hexdigest()[:32]
            if len(header) <= _HEADER_KEPT:
                if len(_buckets) >= _BUCKETS_KEPT:
                    _buckets.clear()  # crude but lock-free; a miss costs one SHA-256
                _buckets[header] = bucket
        return bucket
    return "ip:" + (request.remote_addr or "unknown")
