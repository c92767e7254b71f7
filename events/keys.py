"""The Redis key schema: every key the event store uses, built in one place.

All keys start with a configurable prefix (``TABLETOP_KEY_PREFIX``, default
``tt:``). Every key of one game carries the hash tag ``{<game id>}``, so Redis
Cluster puts all of them in one slot and a Lua script may touch them together
(no CROSSSLOT). The prefix must therefore not contain ``{`` or ``}``: Redis hashes
the first ``{...}`` of a key.

Keys (``<p>`` = the prefix):

``<p>game:{<id>}:events`` -- stream
    One entry per event: entry id ``<version>-0``, one field ``e`` = the canonical
    envelope JSON. Written only by ``scripts.APPEND``; never trimmed, never edited.
``<p>game:{<id>}:head`` -- hash
    ``v`` = last version, ``h`` = its hash, ``e`` = version of the ``GameEnded``
    event (absent while the game runs). Written only by ``scripts.APPEND``; read by
    appenders (the hash to continue) and readers (is the game finished?).
``<p>game:{<id>}:idem`` -- hash
    Idempotency key -> JSON record of the first result (first/last version, head
    hash, request fingerprint, opaque response). Written only by ``scripts.APPEND``.
``<p>game:{<id>}:seed`` -- string
    The secret seed (hex). Written once by ``scripts.APPEND``, together with
    ``GameCreated``; read only to seed the engine and to reveal it after the end.
``<p>game:{<id>}:snapshot`` -- hash
    ``v`` = version, ``r`` = rules version, ``s`` = encoded state. Written by
    ``scripts.SAVE_SNAPSHOT`` (only if newer); a cache: deleting it is always safe.

Projections (``events/projections``) document their own keys in their modules and
build them with :func:`prefixed`, so the prefix applies to every key we own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""Allowed game ids: URL-safe, no hash-tag braces, no glob characters."""


def check_prefix(prefix: str) -> str:
    """``prefix`` unchanged, or ValueError if it would break the hash tag."""
    if "{" in prefix or "}" in prefix:
        raise ValueError(f"a key prefix must not contain braces: {prefix!r}")
    return prefix


def check_game_id(game_id: str) -> str:
    """``game_id`` unchanged, or ValueError if it is not a valid game id."""
    if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id):
        raise ValueError(f"invalid game id {game_id!r}")
    return game_id


def prefixed(prefix: str, name: str) -> str:
    """A non-game key (e.g. a projection's index) under ``prefix``."""
    return check_prefix(prefix) + name


@dataclass(frozen=True, slots=True)
class GameKeys:
    """The keys of one game, all sharing the hash tag ``{<game id>}``."""

    events: str
    head: str
    idempotency: str
    seed: str
    snapshot: str

    @classmethod
    def of(cls, prefix: str, game_id: str) -> GameKeys:
        """The keys of ``game_id``; ValueError for an invalid id or prefix."""
        base = f"{check_prefix(prefix)}game:{{{check_game_id(game_id)}}}:"
        return cls(
            events=base + "events",
            head=base + "head",
            idempotency=base + "idem",
            seed=base + "seed",
            snapshot=base + "snapshot",
        )
