"""Marshmallow schema of the envelope (the metadata around every event).

Used on the write path only: the read path trusts what the write path stored (and
the hash chain makes any later edit evident), so replay stays fast.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from events.redis_adapter.keys import GAME_ID
from events.schemas.fields import EVENT_TYPE, HEX64, ISO_UTC, seat_field


class ActorSchema(Schema):
    """``{"kind": "seat"|"bot"|"timeout", "seat": n}`` or ``{"kind": "system"}``
    (``timeout``: the turn clock's policy deciding for a seat that timed out)."""

    kind = fields.String(required=True, validate=validate.OneOf(["seat", "bot", "timeout", "system"]))
    seat = seat_field(required=False)

    @validates_schema
    def _seat_iff_player(self, data: dict[str, Any], **kwargs: Any) -> None:
        if (data["kind"] == "system") == ("seat" in data):
            raise ValidationError("seat and bot actors need a seat; the system has none", "seat")


class EnvelopeSchema(Schema):
    """The stored form of one event (see ``events.model.envelope``): seal 2 (``seal``,
    ``private_digest`` and ``command_digest`` present, each digest null exactly when
    its part is null) or seal 1 (none of the three)."""

    game_id = fields.String(required=True, validate=validate.Regexp(GAME_ID.pattern + r"\Z"))
    version = fields.Integer(strict=True, required=True, validate=validate.Range(min=1))
    type = fields.String(required=True, validate=EVENT_TYPE)
    schema_version = fields.Integer(strict=True, required=True, validate=validate.Range(min=1))
    time = fields.String(required=True, validate=ISO_UTC)
    actor = fields.Nested(ActorSchema, required=True)
    command = fields.Dict(keys=fields.String(), required=True, allow_none=True)
    data = fields.Dict(keys=fields.String(), required=True)
    private = fields.Dict(keys=fields.String(), required=True, allow_none=True)
    visible_to = fields.List(seat_field(), required=True)
    prev_hash = fields.String(required=True, validate=HEX64)
    hash = fields.String(required=True, validate=HEX64)
    seal = fields.Integer(strict=True, validate=validate.OneOf([2]))
    private_digest = fields.String(allow_none=True, validate=HEX64)
    command_digest = fields.String(allow_none=True, validate=HEX64)

    @validates_schema
    def _visibility(self, data: dict[str, Any], **kwargs: Any) -> None:
        if data["private"] is None and data["visible_to"]:
            raise ValidationError(
                "visible_to must be empty when there is no private part", "visible_to"
            )
        if data["command"] is not None and not isinstance(data["command"].get("kind"), str):
            raise ValidationError("a command needs a string 'kind'", "command")
        digests = [name for name in _DIGESTS if name in data]
        if "seal" not in data:
            if digests:
                raise ValidationError("digests belong to seal 2, but there is no seal", digests[0])
            return
        for part in ("private", "command"):
            name = f"{part}_digest"
            if name not in data:
                raise ValidationError("Missing data for required field.", name)
            if (data[name] is None) != (data[part] is None):
                raise ValidationError(f"must be null exactly when {part} is null", name)


_DIGESTS = ("private_digest", "command_digest")
