"""Stream tickets over HTTP: issue one for a seat (or the admin), redeem it on the stream.

- ``POST /v1/games/{id}/stream-tickets`` with ``Authorization: Bearer <seat token>``
  (or the admin token): 201 ``{"ticket", "seat", "expires_in"}``, ``Cache-Control:
  no-store``. No token: 401 ``unauthenticated`` (spectators need no ticket: the public
  stream is open without one). Each issue is charged to the client's ticket limit
  (``TABLETOP_STREAM_TICKET_LIMIT_PER_MINUTE`` per address; 429 ``ticket_rate_limited``),
  so issuing tickets cannot fill Redis: at most that many live tickets per address,
  each gone after ``TABLETOP_STREAM_TICKET_TTL_S`` seconds.
- ``GET /v1/games/{id}/events/stream?ticket=<t>``: ``service.http.stream_access``
  redeems the ticket (once; see :mod:`service.app.stream_tickets`) and the stream runs
  as the viewer it was issued for, if the credential it was issued to still holds its
  seat. An unknown, spent, expired or other game's ticket, or one whose credential no
  longer holds the seat, is 401 ``invalid_ticket``, one answer for all. A ticket together with an ``Authorization``
  header is 400 ``invalid_parameter`` (one credential per request, never a guess which
  one wins).

EventSource reconnects to the URL it was given, whose ticket is spent by then: a client
reconnects by fetching a new ticket and opening ``?ticket=<new>&after=<last event id>``.
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response, request

from engine.table import Table
from events.model.redaction import ADMIN
from service.accounts.store import is_player_key, key_hash
from service.app.errors import Unauthenticated
from service.app.stream_tickets import Holder, StreamTickets
from service.bootstrap import Services
from service.http import auth, body, context, games, ratelimit
from service.http.problems import Problem
from service.http.responses import json_response

EXTENSION = "tabletop.tickets"
"""The key of the app's :class:`StreamTickets` in ``app.extensions``."""

MAX_TICKET_CHARS = 128
"""Longest ``ticket`` parameter looked up (ours have 43 characters); longer is a 400."""

bp = Blueprint("tickets", __name__, url_prefix="/v1/games")
bp.url_value_preprocessor(games.check_game_id)


def install(app: Flask, services: Services) -> StreamTickets:
    """Give ``app`` its ticket store (the event store's Redis, under its prefix)."""
    tickets = StreamTickets(
        services.redis, services.store.prefix, services.settings.stream_ticket_ttl_s
    )
    app.extensions[EXTENSION] = tickets
    return tickets


def tickets_store() -> StreamTickets:
    """This app's :class:`StreamTickets`."""
    from flask import current_app

    return current_app.extensions[EXTENSION]  # type: ignore[no-any-return]


@bp.post("/<game_id>/stream-tickets")
def issue(game_id: str) -> Response:
    body.no_query()
    token = auth.bearer_token()
    if token is None:
        raise Unauthenticated(
            "a seat token (or the admin token) is required; "
            "spectators open the stream without a ticket"
        )
    ratelimit.charge(ratelimit.TICKET)
    app = context.application()
    table = app.tables.load(game_id)  # 404 for an unknown game
    tickets = tickets_store()
    seat: int | None = None
    if auth.is_admin(token):
        ticket = tickets.issue(game_id, ADMIN)
    else:
        seat = app.authenticate(table, game_id, token)  # 401 unless it holds a seat
        ticket = tickets.issue(game_id, seat, _holder(table, seat, token))
    document = {"ticket": ticket, "seat": seat, "expires_in": tickets.ttl_s}
    return json_response(document, 201, {"Cache-Control": "no-store"})


def _holder(table: Table, seat: int, token: str) -> Holder:
    """The :class:`Holder` a ticket records for ``token``, which holds ``seat`` at ``table``."""
    if is_player_key(token):
        accounts = context.application().accounts
        resolved = None if accounts is None else accounts.resolve(token)
        if resolved is None:  # replaced in the instant since it was checked
            raise Unauthenticated("invalid player key")
        return Holder(account=resolved.account_id, key_hash=key_hash(token))
    return Holder(token_hash=table.seats[seat].token_hash)


def checked_ticket(ticket: str) -> str:
    """``ticket`` as given in a stream's URL: 400 next to an ``Authorization`` header (one
    credential per request, never a guess which one wins) or when it is too long."""
    if request.headers.get("Authorization") is not None:
        raise Problem(
            400,
            "invalid_parameter",
            "send either a ticket or an Authorization header, not both",
            errors={"ticket": ["not allowed with an Authorization header"]},
        )
    if len(ticket) > MAX_TICKET_CHARS:
        raise Problem(
            400,
            "invalid_parameter",
            "a query parameter is invalid",
            errors={"ticket": [f"at most {MAX_TICKET_CHARS} characters"]},
        )
    return ticket


def invalid_ticket(where: str) -> Problem:
    """The one answer for an unknown, spent or expired ticket (or one for another stream)."""
    return Problem(
        401,
        "invalid_ticket",
        "this stream ticket is unknown, used, expired or for another stream; "
        f"get a new one: POST {where}",
        {"WWW-Authenticate": 'Bearer realm="tabletop"'},
    )


def account_of_ticket(ticket: str) -> Holder:
    """The account (and its key's hash) whose player stream ``ticket`` opens, consuming
    it, if that key is still the account's; 401 otherwise (one answer for all)."""
    holder = tickets_store().redeem_for_account(checked_ticket(ticket))
    accounts = context.application().accounts
    if holder is None or accounts is None or holder.account is None or holder.key_hash is None:
        raise invalid_ticket("/v1/players/me/stream-tickets")
    if accounts.fits(holder.account, holder.key_hash) is None:
        raise invalid_ticket("/v1/players/me/stream-tickets")  # its key was replaced since
    return holder


