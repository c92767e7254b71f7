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

import functools
import hmac
import ipaddress
from collections.abc import Mapping, MutableMapping
from typing import Any

from flask import request

from engine.table import OPEN, Table
from events.model.redaction import ADMIN, SPECTATOR, Viewer
from service.accounts.store import Account, is_player_key
from service.app.application import Application
from service.app.errors import Forbidden, GameNotFound, NotAPlayer, Unauthenticated
from service.bootstrap import Services
from service.http import context
from service.settings import Settings
from service.tokens import matches, parse_token

_UNSET = object()
_TOKEN_KEY = "tabletop.bearer_token"
"""Where :func:`bearer_token` keeps the parsed token for the rest of the request."""


def bearer_token() -> str | None:
    """The bearer token of the request (None without an Authorization header)."""
    return bearer_token_in(request.environ)


def bearer_token_in(environ: MutableMapping[str, Any]) -> str | None:
    """:func:`bearer_token` of a WSGI ``environ`` (for ``service.http.direct``)."""
    # Kept in the request's environ (one lookup, not three via ``g``): handlers ask for
    # it several times per request.
    cached = environ.get(_TOKEN_KEY, _UNSET)
    if cached is not _UNSET:
        return cached  # type: ignore[no-any-return]
    header = environ.get("HTTP_AUTHORIZATION")  # what request.headers would read
    token = None
    if header is not None:
        scheme, _, value = header.strip().partition(" ")
        token = value.strip()
        if scheme.lower() != "bearer" or not token:
            raise Unauthenticated("send the token as 'Authorization: Bearer <token>'")
    environ[_TOKEN_KEY] = token
    return token


def is_admin(token: str | None, settings: Settings | None = None) -> bool:
    """Whether ``token`` is the configured admin token (never, if none is configured);
    ``settings``: the app's (default: the current app's)."""
    admin = (settings or context.settings()).admin_token
    return bool(admin) and token is not None and hmac.compare_digest(token.encode(), admin.encode())


def is_admin_request() -> bool:
    """Whether the request carries the admin token (never raises for a bad header)."""
    header = request.headers.get("Authorization")
    if not header:
        return False
    scheme, _, value = header.strip().partition(" ")
    return scheme.lower() == "bearer" and is_admin(value.strip())


def caller_seat(game_id: str) -> int | None:
    """The caller's seat in ``game_id``: None for a spectator or the admin; 401 for a bad token."""
    token = bearer_token()
    if token is None or is_admin(token):
        return None
    return context.application().seat_of(game_id, token)


def caller_seat_and_table(game_id: str) -> tuple[int | None, Table | None]:
    """:func:`caller_seat`, with the table at the head it was checked on (None for a
    spectator or the admin): the read then builds its answer from it, one load in all."""
    return caller_seat_and_table_in(request.environ, game_id, context.services())


def caller_seat_and_table_in(
    environ: MutableMapping[str, Any], game_id: str, services: Services
) -> tuple[int | None, Table | None]:
    """:func:`caller_seat_and_table` of a WSGI ``environ``, for the app of ``services``."""
    token = bearer_token_in(environ)
    if token is None or is_admin(token, services.settings):
        return None, None
    return services.app.seat_and_table(game_id, token)


def required_token() -> str:
    """The caller's seat token, for commands and leaving: 401 without one, 403 for the admin."""
    return required_token_in(request.environ, context.settings())


def required_token_in(environ: MutableMapping[str, Any], settings: Settings) -> str:
    """:func:`required_token` of a WSGI ``environ``, for the app of ``settings``."""
    token = bearer_token_in(environ)
    if token is None:
        raise Unauthenticated("a seat token is required (Authorization: Bearer <token>)")
    if is_admin(token, settings):
        raise Forbidden("the admin token holds no seat and cannot act in a game")
    return token


def caller_account() -> Account | None:
    """The registered player whose player key the request carries; None without a token
    or with another kind of token (a seat token, the admin's); 401 for a player key that
    fits no account."""
    token = bearer_token()
    if token is None or not is_player_key(token):
        return None
    accounts = context.application().accounts
    account = accounts.resolve(token) if accounts is not None else None
    if account is None:
        raise Unauthenticated("invalid player key")
    return account


def required_account() -> Account:
    """The caller's account: 401 ``player_key_required`` without a player key."""
    account = caller_account()
    if account is None:
        raise NotAPlayer("this needs a player key (Authorization: Bearer <player key>)")
    return account


def history_viewer(game_id: str) -> Viewer:
    """Whom to redact a history for: the admin sees everything, a seat its own part once
    seats are settled (``Table.seats_settled``: before the start a seat shows what a
    spectator sees); 401 for a bad token."""
    token = bearer_token()
    if is_admin(token):
        return ADMIN
    seat, table = caller_seat_and_table(game_id)
    return seat if seat is not None and table is not None and table.seats_settled else SPECTATOR


def client_address() -> str:
    """The client's address as every per-address limit counts it: the peer, or the one
    ``trusted_proxies`` reverse proxies named (``ProxyFix`` has put it in ``remote_addr``
    then); an IPv6 address as its /64 network (see :func:`limited_address`)."""
    return _address(request.environ)


def _address(environ: Mapping[str, Any]) -> str:
    return limited_address(environ.get("REMOTE_ADDR") or "unknown")  # what request.remote_addr reads


IPV6_PREFIX = 64
"""The IPv6 prefix one client is counted by."""


@functools.lru_cache(maxsize=4096)
def limited_address(address: str) -> str:
    """``address`` as one client for the per-address limits: an IPv4 address as it is,
    an IPv6 one as its /64 network (``2001:db8:1:2::/64``), an IPv4-mapped IPv6 one as
    its IPv4 address; anything else unchanged.

    Why: an IPv6 host is usually given a whole /64 and may take any address in it, so a
    limit per IPv6 address would give one client 2^64 buckets (creations, open games,
    streams, bot share, registrations: all of them). A /64 is what one subscriber gets."""
    if ":" not in address:
        return address
    try:
        ip = ipaddress.IPv6Address(address.split("%", 1)[0])  # a zone (fe80::1%eth0) is no part of it
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{ip}/{IPV6_PREFIX}", strict=False))
    except ValueError:
        return address


def rate_limit_bucket(environ: Mapping[str, Any], game_id: str | None, services: Services) -> str:
    """The rate-limit bucket of the request, from *verified* identity only:

    - ``admin`` for the admin token (compared in constant time);
    - ``player:<account id>`` for a player key this process has verified before;
    - ``seat:<game>:<seat>`` for a seat token that holds its seat, on a URL of that
      very game (the check the command path makes anyway: the token's hash against
      the table this process holds -- no round trip when it holds it, else the one
      load the handler would make and then finds cached; once play has begun the
      answer is remembered per token, see ``_settled``);
    - ``ip:<address>`` for everything else: no token, a malformed header, a token
      that fits no seat, or a token sent where no game of its own is named.

    So a made-up or re-spelled token is counted against the client's address, never
    in a fresh bucket of its own. Never raises for a bad header or token: the handler
    answers 401 for those, after this request was counted. ``game_id``: the game the
    URL names (None: none)."""
    app = services.app
    header = environ.get("HTTP_AUTHORIZATION")  # what request.headers would read
    if header:
        scheme, _, value = header.strip().partition(" ")
        token = value.strip()
        if scheme.lower() == "bearer" and token:
            settled = _settled.get(token)
            if settled is not None and game_id == settled[0]:
                if _still_held(app, settled):
                    return settled[1]
                _settled.pop(token, None)  # its seat was taken back (SeatTokenReissued)
            if is_admin(token, services.settings):
                return "admin"
            if is_player_key(token):
                # Verified only if this process resolved it before (no round trip here);
                # else the address pays, as for any token not yet checked.
                account = app.accounts.cached(token) if app.accounts is not None else None
                return "ip:" + _address(environ) if account is None else "player:" + account.account_id
            seat = _verified_seat(app, token, game_id)
            if seat is not None:
                return seat
    return "ip:" + _address(environ)


_settled: dict[str, tuple[str, str, int, str | None]] = {}
"""Seat token -> (its game, its bucket, its seat, the seat's stored token hash when it was
verified), for tokens verified on a table whose play had begun: seats never change hands
after that, so the token holds its seat unless its account takes the seat back with a
fresh token (``SeatTokenReissued``) -- checked against the table this process holds, if
it holds one (no round trip), so a revoked token cannot spend the seat's budget here
(the command path checks it anyway). The check compares the stored hash with the one
remembered, not a new hash of the token: both are the server's own values (nothing
the client sent is compared), and a SHA-256 per request cost more than the rest of the
check. Only verified tokens get in, at most ``_SETTLED_KEPT`` of them (then it starts
afresh): made-up tokens cannot grow it."""
_SETTLED_KEPT = 10_000


def _verified_seat(app: Application, token: str, game_id: str | None) -> str | None:
    """``seat:<game>:<seat>`` if ``token`` holds its seat of ``game_id``, the game the URL names."""
    claim = parse_token(token)
    if claim is None or game_id != claim.game_id:
        return None
    table = app.tables.cached(claim.game_id)
    if table is not None and _holds(table, claim.seat, token):
        return _bucket(claim.game_id, claim.seat, token, table)
    if table is None or table.status == OPEN:
        # Not held here, or held while seats could still change hands: the current
        # table. (Once play has begun seats never change, so a token the held table
        # refuses is refused without a round trip.)
        try:
            table = app.tables.load(claim.game_id)
        except GameNotFound:
            return None
        if _holds(table, claim.seat, token):
            return _bucket(claim.game_id, claim.seat, token, table)
    return None


def _bucket(game_id: str, seat: int, token: str, table: Table) -> str:
    bucket = f"seat:{game_id}:{seat}"
    if table.status != OPEN:
        if len(_settled) >= _SETTLED_KEPT:
            _settled.clear()  # crude but lock-free; a miss costs one check
        _settled[token] = (game_id, bucket, seat, table.seats[seat].token_hash)
    return bucket


def _still_held(app: Application, settled: tuple[str, str, int, str | None]) -> bool:
    """Whether the settled token still holds its seat on the table this process holds:
    the seat's stored hash is still the one it had when the token was verified (True
    when this process holds no table: no round trip for a rate-limit bucket)."""
    game_id, _, seat, stored_hash = settled
    table = app.tables.cached(game_id)
    return table is None or (seat < len(table.seats) and table.seats[seat].token_hash == stored_hash)


def _holds(table: Table, seat: int, token: str) -> bool:
    return 0 <= seat < len(table.seats) and matches(token, table.seats[seat].token_hash)
