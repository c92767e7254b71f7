"""Schemas of Abluxxen's event types (``engine/abluxxen/events.py``, schema v1 each).

Cards are ints 1..13 or ``"X"`` (joker); a set is ``{"number", "count", "jokers"}``.
Private parts: ``DeckShuffled.order`` (nobody during play), ``HandDealt.cards``
(the owner) and ``CardDrawn.card`` for a card drawn from the pile (the drawer).
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validates_schema

from events.schemas.fields import Card, choice, count_field, integer, seat_field
from events.schemas.registry import EventType


def _cards() -> fields.List[Any]:
    return fields.List(Card(), required=True)


class Options(Schema):
    edition = choice("amigo", "classic")
    rounds = integer(1)


class CardSetSchema(Schema):
    number = integer(1, 13, allow_none=True)
    count = count_field()
    jokers = count_field()


class GameStarted(Schema):
    players = integer(2, 5)
    options = fields.Nested(Options, required=True)


class DeckShuffled(Schema):
    round = integer(1)
    start_seat = seat_field()
    size = count_field()


class OrderPrivate(Schema):
    order = _cards()


class HandDealt(Schema):
    seat = seat_field()
    size = count_field()


class CardsPrivate(Schema):
    cards = _cards()


class Cards(Schema):
    """``DisplayDealt`` and ``DisplayRefilled``."""

    cards = _cards()
    pile_size = count_field()


class SeatSet(Schema):
    """``SetPlayed``, ``SetRemoved``, ``SetTakenBack`` and ``SetDiscarded``."""

    seat = seat_field()
    set = fields.Nested(CardSetSchema, required=True)


class Abluxxed(Schema):
    seat = seat_field()
    victims = fields.List(seat_field(), required=True)


class SetTaken(Schema):
    seat = seat_field()
    victim = seat_field()
    set = fields.Nested(CardSetSchema, required=True)


class SetLeft(Schema):
    seat = seat_field()
    victim = seat_field()


class CardDrawn(Schema):
    """From the display the card is public; from the pile it is in ``private``."""

    JSON_SCHEMA_ONE_OF = (  # the hook below, for the published contract (events.schemas.jsonschema)
        {"properties": {"from": {"const": "display"}}, "required": ["card"]},
        {"properties": {"from": {"const": "pile"}}, "not": {"required": ["card"]}},
    )

    seat = seat_field()
    from_ = choice("display", "pile", data_key="from")
    card = Card()

    @validates_schema
    def _card_iff_display(self, data: dict[str, Any], **kwargs: Any) -> None:
        if ("card" in data) != (data["from_"] == "display"):
            raise ValidationError(
                "a card drawn from the display is public, one from the pile is not", "card"
            )


class CardPrivate(Schema):
    card = Card(required=True)


class Seat(Schema):
    seat = seat_field()


class TurnPassed(Schema):
    seat = seat_field()
    next = seat_field()


class DealEnded(Schema):
    round = integer(1)
    reason = fields.String(required=True)
    deal_scores = fields.List(integer(), required=True)
    hand_sizes = fields.List(count_field(), required=True)
    scores = fields.List(integer(), required=True)


EVENT_TYPES: tuple[EventType, ...] = (
    EventType("GameStarted", GameStarted()),
    EventType("DeckShuffled", DeckShuffled(), OrderPrivate()),
    EventType("HandDealt", HandDealt(), CardsPrivate()),
    EventType("DisplayDealt", Cards()),
    EventType("SetPlayed", SeatSet()),
    EventType("Abluxxed", Abluxxed()),
    EventType("SetRemoved", SeatSet()),
    EventType("SetTaken", SetTaken()),
    EventType("SetLeft", SetLeft()),
    EventType("SetTakenBack", SeatSet()),
    EventType("SetDiscarded", SeatSet()),
    EventType("CardDrawn", CardDrawn(), CardPrivate()),
    EventType("DrawDeclined", Seat()),
    EventType("DisplayRefilled", Cards()),
    EventType("TurnPassed", TurnPassed()),
    EventType("DealEnded", DealEnded()),
)
