"""Invite codes: a game whose seats only people with its code may take.

A creator who asks for an invite-only game gets the code once, in the creation's
answer, and shares it (the web client makes it part of a link). ``GameCreated`` says
``"invite_only": true`` in public and keeps SHA-256 of the code in its hidden part,
which no viewer sees while the game runs -- the code itself is stored nowhere.

Guarantees:

- **Unguessable.** 192 random bits (``secrets``): a stranger who sees the game in the
  lobby cannot take a seat, however many times it tries (each try is a join, under
  the client's request limits).
- **Nothing to test a guess against.** The hash never leaves the server while the game
  runs (redacted like a seat token's hash), and a wrong code and a missing one get the
  same answer, 403 ``invite_required``, compared in constant time.
- Only joining needs it. Bots named at creation sit at once, and a registered player
  taking back its own seat (``Application.reissue_token``) already holds it.
- **Renewable, by the table.** Before the start a seat may make a new code
  (``Application.renew_invite``, event ``InviteRenewed``): a lost code is replaced and
  a leaked one void from that version on, since every join is decided on the table
  that holds the newest hash.
"""

from __future__ import annotations

import secrets

from engine.table import Table
from service.app.errors import InviteRequired
from service.tokens import matches
from service.tokens import token_hash as invite_hash  # the same stored form as a seat token's

__all__ = ["INVITE_BYTES", "MAX_INVITE_LENGTH", "check_invite", "invite_hash", "new_invite"]

INVITE_BYTES = 24
"""Random bytes of a code: 192 bits, 32 URL-safe characters."""

MAX_INVITE_LENGTH = 64
"""Longest code a join may bring (ours are 32 characters); longer is a 400."""


def new_invite() -> str:
    """A fresh invite code (URL-safe base64, no padding)."""
    return secrets.token_urlsafe(INVITE_BYTES)


def check_invite(table: Table, code: str | None) -> None:
    """InviteRequired unless ``table``'s seats are open to all or ``code`` is its invite.

    A table folded from a redacted history (``invite_hash`` None while ``invite_only``)
    admits nobody: only the server's own, unredacted fold may let a person in. Compared
    as seat tokens are (``service.tokens.matches``: hashes, in constant time)."""
    if table.invite_only and not matches(code or "", table.invite_hash):
        raise InviteRequired("this game's seats are taken by invitation: bring its invite code")
