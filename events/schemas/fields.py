"""Field builders and validators shared by the event schemas.

Integers are always strict: marshmallow then refuses bools and floats, which JSON
clients send by mistake and which would hash differently from the ints we mean.
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import ValidationError, fields, validate

MAX_SEAT = 63
"""Upper bound for seat numbers in envelopes (games have at most a handful)."""

ISO_UTC_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,6})?Z\Z")
"""An envelope's time: ISO-8601, UTC, ``Z`` suffix, at most microseconds."""
EVENT_TYPE_RE = re.compile(r"[A-Z][A-Za-z0-9]{0,63}\Z")
"""An event type name: CamelCase, so it never needs escaping in JSON."""

HEX64 = validate.Regexp(r"[0-9a-f]{64}\Z", error="must be 64 lowercase hex digits")
ISO_UTC = validate.Regexp(ISO_UTC_RE, error="must be ISO-8601 UTC ending in Z")
EVENT_TYPE = validate.Regexp(EVENT_TYPE_RE, error="must be a CamelCase name")


def integer(lo: int | None = None, hi: int | None = None, **kwargs: Any) -> fields.Integer:
    """A strict integer in ``lo..hi`` (either bound may be open); required unless told."""
    kwargs.setdefault("required", True)
    return fields.Integer(strict=True, validate=validate.Range(lo, hi), **kwargs)


def seat_field(**kwargs: Any) -> fields.Integer:
    """A seat number in ``0..MAX_SEAT``."""
    return integer(0, MAX_SEAT, **kwargs)


def count_field(**kwargs: Any) -> fields.Integer:
    """A non-negative count."""
    return integer(0, None, **kwargs)


def choice(*allowed: str, **kwargs: Any) -> fields.String:
    """A string that is one of ``allowed``."""
    kwargs.setdefault("required", True)
    return fields.String(validate=validate.OneOf(allowed), **kwargs)


def name(pattern: str, **kwargs: Any) -> fields.String:
    """A string matching ``pattern`` in full."""
    kwargs.setdefault("required", True)
    return fields.String(validate=validate.Regexp(pattern + r"\Z"), **kwargs)


class StrictBool(fields.Field):  # type: ignore[type-arg]  # generic only in marshmallow 4
    """JSON ``true`` or ``false`` only (marshmallow's Boolean also takes 1, "yes", ...)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if type(value) is bool:
            return value
        raise ValidationError("true or false")


class Card(fields.Field):  # type: ignore[type-arg]  # generic only in marshmallow 4
    """An Abluxxen card in JSON: an int 1..13, or ``"X"`` for a joker."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if value == "X" and isinstance(value, str):
            return value
        if type(value) is int and 1 <= value <= 13:
            return value
        raise ValidationError('a card is an integer 1..13 or "X"')
