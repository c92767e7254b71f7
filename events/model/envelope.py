"""The envelope: an engine event plus the metadata the store adds.

Stored form (one stream entry per event, canonical JSON, see ``events.model.canonical``),
seal 2 -- what every write produces::

    {"actor": {"kind": "seat", "seat": 2}, "command": {"kind": "roll"} | null,
     "command_digest": "<64 hex>" | null, "data": {...}, "game_id": "g1",
     "hash": "<64 hex>", "prev_hash": "<64 hex>", "private": {...} | null,
     "private_digest": "<64 hex>" | null, "schema_version": 1, "seal": 2,
     "time": "2025-...Z", "type": "DieRolled", "version": 7, "visible_to": [2]}

``hash`` = SHA-256 of the canonical JSON of the stored form without ``hash``,
``private`` and ``command``; those two are committed by ``private_digest`` and
``command_digest`` = HMAC-SHA256 keyed by the game's secret seed
(``events.chain.sealing.commit_digest``; null exactly when the part is null).
``prev_hash`` = the previous event's ``hash`` (64 zeros for version 1).

Seal 1 (stored before seal 2; no ``seal`` and no digest fields): ``hash`` =
SHA-256 of the canonical stored form without ``hash``, hidden parts included --
so its redacted events let a viewer test guesses about them (``docs/audit.md``).
Such events still load and verify; they are never written any more. ``command``
is the command that caused the batch (the same in every event of the batch), so an
auditor can re-run the engine. ``actor`` is one of ``{"kind": "seat", "seat": n}``,
``{"kind": "bot", "seat": n}``, ``{"kind": "timeout", "seat": n}`` (a turn clock's
policy deciding for a seat that timed out) or ``{"kind": "system"}``.

Envelopes read from the store hold plain JSON data (dicts and lists); treat them as
read-only. A *redacted* envelope (``redacted=True``) had ``private`` and/or
``command`` removed for its viewer. Under seal 2 it keeps both digests, so its
``hash`` and links still verify on the redacted form (without its ``redacted``
marker) while the game runs, and nothing in it lets a viewer test a guess; the
removed parts are checked against their digests once the seed is revealed. A
redacted seal-1 envelope only verifies against the full export after the end.
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
"""The keys of a seal-1 stored form, in canonical (sorted) order."""

SEAL2_FIELDS = tuple(sorted((*ENVELOPE_FIELDS, "seal", "private_digest", "command_digest")))
"""The keys of a seal-2 stored form, in canonical (sorted) order."""

SYSTEM: JSON = {"kind": "system"}
"""The actor of events no player caused (game creation, seed reveal, timeouts)."""


def seat_actor(seat: int) -> JSON:
    """The actor for a command a person sent for ``seat``."""
    return {"kind": "seat", "seat": seat}


def bot_actor(seat: int) -> JSON:
    """The actor for a command a bot sent for ``seat``."""
    return {"kind": "bot", "seat": seat}


def timeout_actor(seat: int) -> JSON:
    """The actor for the decision a turn clock's policy made for ``seat`` after its
    ``TurnTimedOut`` (the server acting, in the seat's place: its ``command`` is as
    hidden as the seat's own would be)."""
    return {"kind": "timeout", "seat": seat}


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
    seal: int = 1
    private_digest: str | None = None
    command_digest: str | None = None

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
            False,
            raw.get("seal", 1),
            raw.get("private_digest"),
            raw.get("command_digest"),
        )

    def to_stored(self) -> JSON:
        """The stored form (without the ``redacted`` marker, which is never stored): a
        seal-1 event without the seal-2 fields, so its hash still covers exactly it."""
        names = ENVELOPE_FIELDS if self.seal == 1 else SEAL2_FIELDS
        return {name: getattr(self, name) for name in names}

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
