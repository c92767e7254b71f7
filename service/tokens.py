"""Seat tokens: bearer secrets that let a client act for one seat of one game.

A token reads ``<game id>.<seat>.<secret>``: the game and seat are in the clear so
the server finds the stored hash with one lookup in the game's own hash slot;
the 256-bit secret makes it unguessable. Only SHA-256 of the whole token is
stored, so a Redis dump reveals no usable token. Comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SeatClaim:
    """What a token claims: a seat of a game (not yet checked against the stored hash)."""

    game_id: str
    seat: int


def new_token(game_id: str, seat: int) -> str:
    """A fresh token for ``seat`` of ``game_id``."""
    return f"{game_id}.{seat}.{secrets.token_urlsafe(32)}"


def token_hash(token: str) -> str:
    """The stored form of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def parse_token(token: str) -> SeatClaim | None:
    """The claim inside ``token``, or None if it is not shaped like one of ours."""
    parts = token.split(".")
    if len(parts) != 3 or not parts[0] or not parts[1].isdigit() or len(parts[2]) < 20:
        return None
    return SeatClaim(parts[0], int(parts[1]))


def matches(token: str, stored_hash: str | None) -> bool:
    """Whether ``token`` is the one whose hash was stored."""
    return stored_hash is not None and hmac.compare_digest(token_hash(token), stored_hash)
