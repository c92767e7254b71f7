"""Stream tickets: how a browser's ``EventSource`` opens a seat's event stream.

``EventSource`` cannot send an ``Authorization`` header, and a seat token must never
appear in a URL (URLs end up in logs, histories and ``Referer`` headers). So a client
that holds a seat token (or the admin token) trades it for a *ticket*, and opens the
stream with ``?ticket=<ticket>``.

Guarantees:

- **Unguessable**: 256 random bits (``secrets.token_urlsafe(32)``, 43 URL-safe chars).
- **Single-purpose**: a ticket names one game and one viewer (the seat it was issued
  for, or the admin). It is looked up only by the stream endpoint of that game; it is
  not shaped like a seat token (no ``<game>.<seat>.`` prefix) and is stored nowhere a
  token is looked up, so it is never accepted as a bearer token. A seat's ticket also
  records its :class:`Holder` (the credential it was issued to), and opens the stream
  only while that credential still holds the seat (``service.http.stream_access``).
- **Single-use**: :meth:`StreamTickets.redeem` takes it with ``GETDEL`` -- atomic, so
  of two concurrent opens exactly one gets the viewer.
- **Short-lived**: the key expires ``ttl_s`` (30) seconds after issue if unused.
- **Nothing usable at rest**: only SHA-256 of the ticket is stored (in the key's
  name), so a Redis dump holds no ticket.
- **Server name space**: the key is ``<p>ticket:{<game id>}:<sha256 hex>`` under the
  server's own prefix; its only client-chosen part is a hash, so no client can name,
  overwrite or collide with another key.

An unknown, spent, expired or other game's ticket are one and the same case for
:meth:`redeem` (None), so the answer tells a client nothing about which it was.

A registered player's stream of notices (``/v1/players/me/stream``) has tickets of its
own, with the same guarantees: :meth:`issue_for_account` / :meth:`redeem_for_account`,
kept under ``<p>ticket:player:<sha256 hex>`` -- a separate name space, so a game's
ticket never opens a player's stream nor the other way round.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass
from typing import Any

from events.model.redaction import ADMIN, Viewer
from events.redis_adapter.keys import check_game_id, check_prefix

TICKET_BYTES = 32
"""Random bytes per ticket (256 bits)."""

ADMIN_VIEWER = "admin"
"""How a ticket issued for the admin token records its viewer."""


class StreamTickets:
    """Issues and redeems stream tickets in Redis (a ``redis.Redis`` or cluster client)."""

    def __init__(self, client: Any, prefix: str, ttl_s: int) -> None:
        self._redis = client
        self._prefix = check_prefix(prefix)
        self.ttl_s = ttl_s

    def key(self, game_id: str, ticket: str) -> str:
        """Where ``ticket`` of ``game_id`` is kept: its hash under the game's hash tag."""
        return f"{self._prefix}ticket:{{{check_game_id(game_id)}}}:{_digest(ticket)}"

    def issue(self, game_id: str, viewer: Viewer, holder: Holder | None = None) -> str:
        """A new ticket that opens ``game_id``'s stream once as ``viewer`` (a seat or
        :data:`ADMIN`), valid for ``ttl_s`` seconds; for a seat, ``holder`` is the
        credential it was issued to (checked again when the ticket is redeemed: the seat
        may have changed hands meanwhile). ValueError for any other viewer (spectators
        need none: the public stream is open) or a seat without its holder."""
        record: dict[str, Any]
        if viewer == ADMIN:
            record = {"viewer": ADMIN_VIEWER}
        elif type(viewer) is int and holder is not None:
            record = {"viewer": viewer, "holder": holder.as_json()}
        else:
            raise ValueError("tickets are issued for a seat (with its holder) or the admin only")
        ticket = secrets.token_urlsafe(TICKET_BYTES)
        self._redis.set(self.key(game_id, ticket), json.dumps(record), ex=self.ttl_s)
        return ticket

    def account_key(self, ticket: str) -> str:
        """Where a player stream ticket is kept: its hash, in the players' name space."""
        return f"{self._prefix}ticket:player:{_digest(ticket)}"

    def issue_for_account(self, account_id: str, key_hash: str) -> str:
        """A new ticket that opens the player stream of ``account_id`` once, valid for
        ``ttl_s`` seconds, for as long as the player key whose SHA-256 is ``key_hash``
        (the one it was issued to) is the account's."""
        ticket = secrets.token_urlsafe(TICKET_BYTES)
        record = json.dumps({"account": account_id, "key_hash": key_hash})
        self._redis.set(self.account_key(ticket), record, ex=self.ttl_s)
        return ticket

    def redeem_for_account(self, ticket: str) -> Holder | None:
        """The account (and its key's hash) a player stream ticket was issued to,
        consuming it; None if it is unknown, already used or expired (a game's ticket
        is unknown here), or issued before key hashes were recorded."""
        raw = self._redis.getdel(self.account_key(ticket))
        if raw is None:
            return None
        record = json.loads(raw)
        if "key_hash" not in record:
            return None
        return Holder(account=str(record["account"]), key_hash=str(record["key_hash"]))

    def redeem(self, game_id: str, ticket: str) -> tuple[Viewer, Holder | None] | None:
        """The viewer ``ticket`` was issued for and, for a seat, the holder it was issued
        to, consuming it; None if it is unknown, already used, expired, or for another
        game (or a seat's ticket issued before holders were recorded)."""
        raw = self._redis.getdel(self.key(game_id, ticket))
        if raw is None:
            return None
        record = json.loads(raw)
        if record["viewer"] == ADMIN_VIEWER:
            return ADMIN, None
        if "holder" not in record:
            return None
        return int(record["viewer"]), Holder.from_json(record["holder"])


@dataclass(frozen=True, slots=True)
class Holder:
    """Who a seat's ticket was issued to: the seat's token (``token_hash``: the seat's
    stored token hash then) or a registered player (``account`` id and ``key_hash``,
    SHA-256 of its player key then). Server values only, nothing a client chose."""

    token_hash: str | None = None
    account: str | None = None
    key_hash: str | None = None

    def as_json(self) -> dict[str, str | None]:
        return {"token_hash": self.token_hash, "account": self.account, "key_hash": self.key_hash}

    @classmethod
    def from_json(cls, data: dict[str, str | None]) -> Holder:
        return cls(data.get("token_hash"), data.get("account"), data.get("key_hash"))


def _digest(ticket: str) -> str:
    """SHA-256 hex of a ticket as given (any text a client sends hashes, none raises)."""
    return hashlib.sha256(ticket.encode("utf-8", "surrogatepass")).hexdigest()
