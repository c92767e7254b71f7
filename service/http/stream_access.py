"""Who a game's event stream is for, and what ends it early.

A request is checked once, but a stream runs on for up to ``sse_max_s``: meanwhile the
credential that opened it may stop holding its seat -- the seat left before the start
(and taken by someone else), its token reissued, the player key replaced. What the
stream shows must follow, or it would go on showing a seat's hidden facts to someone
who no longer holds it. So the stream is opened here with a
:class:`service.http.sse.SeatWatch` for a seat: it sees every later seat change in
its own events, in order, because it never starts after the version the credential
was checked at (a resume point beyond it is 422 ``version_out_of_range``).

A ticket is checked again when it is redeemed: it opens the stream only if the
credential it was issued to (``service.app.stream_tickets.Holder``) still holds the
seat then; else 401 ``invalid_ticket``, the one answer for every refused ticket.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from dataclasses import dataclass

from redis.exceptions import RedisError

from engine.errors import RuleViolation
from engine.table import Table
from events.model.redaction import ADMIN, SPECTATOR, Viewer
from service.accounts.store import AccountStore, is_player_key
from service.http import auth, context
from service.http.sse import SeatWatch
from service.http.tickets import checked_ticket, invalid_ticket, tickets_store

_TICKETS = "/v1/games/{game_id}/stream-tickets"
"""Where a refused ticket's answer sends its client for a new one."""


@dataclass(frozen=True, slots=True)
class StreamAccess:
    """Whom a stream's first events are redacted for, from which version on it may start
    at the latest, and (for a seat) its watch."""

    viewer: Viewer
    checked_at: int
    watch: SeatWatch | None

    def check_start(self, after: int) -> None:
        """422 ``version_out_of_range`` for a resume point beyond the version the
        credential was checked at (the game's head then): no event has that version yet,
        and a stream starting there could pass over the change that ends it."""
        if after > self.checked_at:
            raise RuleViolation(
                "version_out_of_range",
                f"the stream cannot resume after version {after}: the game's last is {self.checked_at}",
                {"head": self.checked_at},
            )


def stream_access(game_id: str, ticket: str | None) -> StreamAccess:
    """The access of a stream of ``game_id`` opened with ``ticket`` (consumed) or the
    request's credentials: 404 for an unknown game, 401 for a bad token or ticket."""
    if ticket is not None:
        return _by_ticket(game_id, ticket)
    app = context.application()
    token = auth.bearer_token()
    table = app.tables.load(game_id)  # at the head: what the credential is checked on
    if token is None or auth.is_admin(token):
        return StreamAccess(SPECTATOR if token is None else ADMIN, table.version, None)
    seat = app.authenticate(table, game_id, token)
    if is_player_key(token):
        accounts = app.accounts
        assert accounts is not None  # authenticate refused the key otherwise
        return _seat(table, seat, by_token=False, still_valid=lambda: accounts.resolve(token) is not None)
    return _seat(table, seat, by_token=True)


def _by_ticket(game_id: str, ticket: str) -> StreamAccess:
    redeemed = tickets_store().redeem(game_id, checked_ticket(ticket))
    if redeemed is None:
        raise invalid_ticket(_TICKETS)
    viewer, holder = redeemed
    app = context.application()
    table = app.tables.load(game_id)
    if viewer == ADMIN:
        return StreamAccess(ADMIN, table.version, None)
    if type(viewer) is not int or holder is None:
        raise invalid_ticket(_TICKETS)
    seat = viewer
    if holder.token_hash is not None:
        stored = table.seats[seat].token_hash or ""
        if not hmac.compare_digest(stored, holder.token_hash):
            raise invalid_ticket(_TICKETS)  # left, or reissued since
        return _seat(table, seat, by_token=True)
    accounts = app.accounts
    if accounts is None or holder.account is None or holder.key_hash is None:
        raise invalid_ticket(_TICKETS)
    account_id, hashed = holder.account, holder.key_hash
    account = accounts.fits(account_id, hashed)
    if account is None or table.seat_of_account(account.name) != seat:
        raise invalid_ticket(_TICKETS)  # key replaced, or seat left
    return _seat(table, seat, by_token=False, still_valid=lambda: _fits(accounts, account_id, hashed))


def _seat(table: Table, seat: int, by_token: bool, still_valid: Callable[[], bool] | None = None) -> StreamAccess:
    watch = SeatWatch(seat, table.version, table.seats_settled, by_token, failing_closed(still_valid))
    return StreamAccess(watch.viewer, table.version, watch)


def _fits(accounts: AccountStore, account_id: str, hashed: str) -> bool:
    return accounts.fits(account_id, hashed) is not None


def failing_closed(check: Callable[[], bool] | None) -> Callable[[], bool] | None:
    """``check``, answering False when Redis cannot tell: the stream then ends and its
    client reconnects, rather than go on unchecked."""
    if check is None:
        return None
    checked = check

    def still_valid() -> bool:
        try:
            return checked()
        except RedisError:
            return False

    return still_valid
