"""A synthetic game for store tests, independent of the real engines.

Its one event type ``Counted {seat, n}`` may carry a private ``note`` visible to
the counting seat. The "state" is the tuple of ``(seat, n)`` pairs in order, so
gap-free, duplicate-free histories are easy to check.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from marshmallow import Schema, fields

from engine.model import Event
from events.model import records
from events.model.envelope import Envelope
from events.model.port import GameRef
from events.redis_adapter.store import RedisEventStore
from events.schemas import SchemaRegistry, abluxxen, schlitzohr
from events.schemas.fields import count_field, seat_field
from events.schemas.registry import EventType
from events.schemas.shared import SHARED_TYPES
from support.clock import StepClock

COUNTER = "counter"


class CountedData(Schema):
    seat = seat_field()
    n = count_field()


class CountedPrivate(Schema):
    note = fields.String(required=True)


COUNTER_TYPES = (EventType("Counted", CountedData(), CountedPrivate()),)


def counter_registry() -> SchemaRegistry:
    """The default registry plus the counter game."""
    return SchemaRegistry(
        SHARED_TYPES,
        {
            "schlitzohr": schlitzohr.EVENT_TYPES,
            "abluxxen": abluxxen.EVENT_TYPES,
            COUNTER: COUNTER_TYPES,
        },
    )


def counted(seat: int, n: int, note: str | None = None) -> Event:
    """A ``Counted`` event; with a ``note`` only ``seat`` may see it."""
    if note is None:
        return Event("Counted", {"seat": seat, "n": n})
    return Event("Counted", {"seat": seat, "n": n}, {"note": note}, (seat,))


def created(seed: str, seats: int = 4) -> Event:
    """The counter game's ``GameCreated``."""
    data = {
        "game": COUNTER,
        "rules_version": "counter/1",
        "options": {},
        "seats": seats,
        "commitment": records.commitment(seed),
    }
    return Event(records.GAME_CREATED, data)


def counter_game(game_id: str) -> GameRef:
    return GameRef(game_id, COUNTER)


def fold(envelopes: Iterable[Envelope]) -> tuple[tuple[int, int], ...]:
    """The counter state: every ``(seat, n)`` in version order."""
    return tuple((e.data["seat"], e.data["n"]) for e in envelopes if e.type == "Counted")


def counter_store(client: Any, prefix: str) -> RedisEventStore:
    """A store of counter games on ``client`` under ``prefix``, with a step clock."""
    return RedisEventStore(client, prefix=prefix, clock=StepClock(), registry=counter_registry())
