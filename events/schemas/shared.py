"""Schemas of the event types every game shares.

- ``GameCreated`` (v2, written by ``events.records``): the game record and the
  commitment to the secret seed. v1 named two fields differently; see
  ``events.upcasting`` for the v1 -> v2 step.
- ``SeedRevealed`` (v1): the secret seed, appended after ``GameEnded``.
- ``GameEnded`` (v1, produced by the engines): the final result.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from events.schemas.fields import HEX64, MAX_SEAT, seat_field
from events.schemas.registry import EventType

GAME_CREATED_VERSION = 2
"""Current schema version of ``GameCreated``."""


class GameCreatedData(Schema):
    """v2: ``{"game", "rules_version", "options", "seats", "commitment"}``."""

    game = fields.String(required=True, validate=validate.Length(1, 64))
    rules_version = fields.String(required=True, validate=validate.Length(1, 64))
    options = fields.Dict(keys=fields.String(), required=True)
    seats = fields.Integer(strict=True, required=True, validate=validate.Range(1, MAX_SEAT + 1))
    commitment = fields.String(required=True, validate=HEX64)


class SeedRevealedData(Schema):
    """``{"seed": <hex of the secret seed bytes>}``; sha256 of the bytes = the commitment."""

    seed = fields.String(required=True, validate=validate.Regexp(r"([0-9a-f]{2}){16,64}\Z"))


class GameEndedData(Schema):
    """``{"reason", "scores", "winners", "turns"}`` as in the engine contract."""

    reason = fields.String(required=True, validate=validate.Length(1, 64))
    scores = fields.List(fields.Integer(strict=True), required=True)
    winners = fields.List(seat_field(), required=True)
    turns = fields.Integer(strict=True, required=True, validate=validate.Range(min=0))


SHARED_TYPES: tuple[EventType, ...] = (
    EventType(
        "GameCreated",
        GameCreatedData(),
        version=GAME_CREATED_VERSION,
        description="A new game: type, options, seats and the seed commitment.",
    ),
    EventType(
        "SeedRevealed",
        SeedRevealedData(),
        description="The secret seed, revealed after the game ended.",
    ),
    EventType("GameEnded", GameEndedData(), description="The game is over: scores and winners."),
)
