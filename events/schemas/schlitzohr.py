"""Schemas of Schlitzohr's event types (``engine/schlitzohr/events.py``, schema v1 each).

Fields are board field names (``"e5"``), ears are ids 0..15, colours are names.
Private parts: ``GameSetUp.colours`` (every ear's colour, nobody during play) and
``EarsInspected.colours`` (ear id as a string -> colour, the inspecting seat).
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, fields

from engine.schlitzohr.material import COLOURS, EARS
from events.schemas.fields import choice, count_field, integer, name, seat_field
from events.schemas.registry import EventType

FIELD = r"[a-z][1-9][0-9]?"


def _field(**kwargs: Any) -> fields.String:
    return name(FIELD, **kwargs)


def _ear() -> fields.Integer:
    return integer(0, EARS - 1)


def _colour() -> fields.String:
    return choice(*COLOURS)


class GameSetUp(Schema):
    players = integer(2, len(COLOURS))
    options = fields.Dict(keys=fields.String(), required=True)
    seat_colours = fields.List(_colour(), required=True)
    ears = fields.List(_field(), required=True)
    first_seat = seat_field()


class GameSetUpPrivate(Schema):
    colours = fields.List(_colour(), required=True)


class DieRolled(Schema):
    seat = seat_field()
    value = integer(1, 6)
    purpose = choice("turn", "peek", "joker")


class EarMoved(Schema):
    seat = seat_field()
    ear = _ear()
    from_ = _field(data_key="from")
    to = _field()
    pips = integer(1, 6)


class EarPlaced(Schema):
    seat = seat_field()
    ear = _ear()
    from_ = _field(data_key="from")
    to = _field()


class EarRevealed(Schema):
    ear = _ear()
    field = _field()
    colour = _colour()


class EarRelocated(Schema):
    ear = _ear()
    from_ = _field(data_key="from")
    to = _field()


class EarsInspected(Schema):
    seat = seat_field()
    ears = fields.List(_ear(), required=True)


class EarsInspectedPrivate(Schema):
    colours = fields.Dict(keys=name(r"[0-9]{1,2}"), values=_colour(), required=True)


class JokerChange(Schema):
    """``JokerUsed`` and ``JokerReturned``."""

    seat = seat_field()
    jokers_left = count_field()


class MoveEnded(Schema):
    seat = seat_field()
    pips_left = count_field()
    reason = choice("no_legal_step")


class TurnEnded(Schema):
    seat = seat_field()
    next_seat = seat_field()
    turn = integer(1)


class SeatForfeited(Schema):
    """``{"seat"}``: the seat timed out under a ``forfeit`` turn clock; its turns are skipped."""

    seat = seat_field()


EVENT_TYPES: tuple[EventType, ...] = (
    EventType("GameSetUp", GameSetUp(), GameSetUpPrivate()),
    EventType("DieRolled", DieRolled()),
    EventType("EarMoved", EarMoved()),
    EventType("EarPlaced", EarPlaced()),
    EventType("EarRevealed", EarRevealed()),
    EventType("EarRelocated", EarRelocated()),
    EventType("EarsInspected", EarsInspected(), EarsInspectedPrivate()),
    EventType("JokerUsed", JokerChange()),
    EventType("JokerReturned", JokerChange()),
    EventType("MoveEnded", MoveEnded()),
    EventType("TurnEnded", TurnEnded()),
    EventType("SeatForfeited", SeatForfeited()),
)
