"""The Redis keys of one registered player (documented with the others in
``events.redis_adapter.keys``).

Every key of an account carries the hash tag ``{<account id>}`` -- the account id is
``events.accounts.names.name_key`` of its name, a hex digest -- so a name a client
chose can never form, or collide with, a key of the server, and all of an account's
keys share one Redis Cluster slot (the notice script touches three of them at once).

``<p>account:{<id>}`` -- string: JSON ``{"name", "key_hash", "created"}``, written once
    with SET NX by the registration (the name is reserved from then on).
``<p>account:{<id>}:games`` -- sorted set: game id -> Unix time (µs) the account took its seat.
``<p>account:{<id>}:notices`` -- stream: the player stream's notices (``MAXLEN ~``
    ``NOTICES_KEPT``), written only by the projector's notice script.
``<p>account:{<id>}:last`` -- hash: game id -> JSON of the last notice about that game
    (``/v1/players/me/games`` reads status and "to move" from it; the notice script
    compares versions against it so each game state is noticed once).
"""

from __future__ import annotations

from dataclasses import dataclass

from events.redis_adapter.keys import check_prefix

NOTICES_KEPT = 10_000
"""About how many notices an account's stream keeps (``XADD MAXLEN ~``): a client that
resumes from an id older than the oldest kept one is told so (``gone``), never silently
skips."""


@dataclass(frozen=True, slots=True)
class AccountKeys:
    """The keys of the account ``account_id`` under ``prefix``."""

    record: str
    games: str
    notices: str
    last: str

    @classmethod
    def of(cls, prefix: str, account_id: str) -> AccountKeys:
        if len(account_id) != 64 or any(c not in "0123456789abcdef" for c in account_id):
            raise ValueError("an account id is a hex SHA-256")
        base = f"{check_prefix(prefix)}account:{{{account_id}}}"
        return cls(base, base + ":games", base + ":notices", base + ":last")
