"""The envelope: an engine event plus the metadata the store adds.

Stored form (one stream entry per event, canonical JSON, see ``events.canonical``)::

    {"actor": {"kind": "seat", "seat": 2}, "command": {"kind": "roll"} | null,
     "data": {...}, "game_id": "g1", "hash": "<64 hex>", "prev_hash": "<64 hex>",
     "private": {...} | null, "schema_version": 1, "time": "2025-...Z",
     "type": "DieRolled", "version": 7, "visible_to": [2]}

``hash`` = SHA-256 of the canonical JSON of the stored form without ``hash``;
``prev_hash`` = the previous event's ``hash`` (64 zeros for version 1). ``command``
is the command that caused the batch (the same in every event of the batch), so an
auditor can re-run the engine. ``actor`` is one of ``{"kind": "seat", "seat": n}``,
``{"kind": "bot", "seat": n}`` or ``{"kind": "system"}``.

Envelopes read from the store hold plain JSON data (dicts and lists); treat them as
read-only. A *redacted* envelope (``redacted=True``) had parts removed for its
viewer; its ``hash`` still belongs to the full event, so it no longer verifies on
its own -- a client checks it against the full export once the game has ended.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.model import JSON, Event

ENVELOPE_FIELDS = (
    "actor",
    "command",
    "data",
    "game_id",
    "hash",
    "prev_hash",
    "private",
    "schema_version",
    "time",
    "type",
    "version",
    "visible_to",
)
"""The keys of the stored form, in canonical (sorted) order."""

SYSTEM: JSON = {"kind": "system"}
"""The actor of events no player caused (game creation, seed reveal, timeouts)."""


def seat_actor(seat: int) -> JSON:
    """The actor for a command a person sent for ``seat``."""
    return {"kind": "seat", "seat": seat}


def bot_actor(seat: int) -> JSON:
    """The actor for a command a bot sent for ``seat``."""
    return {"kind": "bot", "seat": seat}


@dataclass(frozen=True, slots=True)
class Envelope:
    """One stored event with its metadata (see the module docstring)."""

    game_id: str
    version: int
    type: str
    schema_version: int
    time: str
    actor: JSON
    command: JSON | None
    data: JSON
    private: JSON | None
    visible_to: list[int]
    prev_hash: str
    hash: str
    redacted: bool = False

    @classmethod
    def from_stored(cls, raw: Mapping[str, Any]) -> Envelope:
        """The envelope of a stored (and already upcast) dict. Trusts its shape:
        the write path validated it, and the read path must stay fast."""
        return cls(
            raw["game_id"],
            raw["version"],
            raw["type"],
            raw["schema_version"],
            raw["time"],
            raw["actor"],
            raw["command"],
            raw["data"],
            raw["private"],
            raw["visible_to"],
            raw["prev_hash"],
            raw["hash"],
        )

    def to_stored(self) -> JSON:
        """The stored form (without the ``redacted`` marker, which is never stored)."""
        return {name: getattr(self, name) for name in ENVELOPE_FIELDS}

    def to_json(self) -> JSON:
        """The form served to clients: the stored form plus ``redacted``."""
        out = self.to_stored()
        out["redacted"] = self.redacted
        return out

    def to_event(self) -> Event:
        """The engine event inside (for ``Game.evolve``)."""
        return Event(self.type, self.data, self.private, tuple(self.visible_to))

    @property
    def actor_seat(self) -> int | None:
        """The seat that caused this event, or None for a system actor."""
        seat = self.actor.get("seat")
        return seat if isinstance(seat, int) else None
