"""Schemas of the event types every game shares.

- ``GameCreated`` (v2, written by ``events.model.records``): the game record and the
  commitment to the secret seed. v1 named two fields differently; see
  ``events.model.upcasting`` for the v1 -> v2 step.
- ``SeedRevealed`` (v1): the secret seed, appended after ``GameEnded``.
- ``GameEnded`` (v1, produced by the engines): the final result.
- ``SeatTaken`` / ``SeatLeft`` / ``PlayStarted`` (v1, the table of
  ``engine.table``): the lobby, before play begins.
- ``GameExpired`` (v1, the table): the game never started -- its seats were not all
  taken within ``TABLETOP_OPEN_GAME_TTL_S`` (reason ``not_started``, ``open_s``) -- or
  it ran but nobody acted for ``TABLETOP_IDLE_GAME_TTL_S`` (reason ``idle``,
  ``idle_s``); written by the sweeper as the system.
- ``InviteRenewed`` (v1, the table): a seat of an invite-only game gave it a new invite
  code before the start (the hash in the private part, as in ``GameCreated``).
- ``TurnTimedOut`` (v1, the table): a seat let its turn clock's deadline pass; written
  by the sweeper as the system (``engine.turnclock``).
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from engine.table import MAX_NAME_LENGTH
from events.redis_adapter.keys import GAME_ID
from events.schemas.fields import HEX64, ISO_UTC, MAX_SEAT, StrictBool, seat_field
from events.schemas.registry import EventType

GAME_CREATED_VERSION = 2
"""Current schema version of ``GameCreated``."""


class ClockData(Schema):
    """A game's turn clock (``engine.turnclock.check_clock`` gives exactly this)."""

    per_decision_s = fields.Integer(strict=True, required=True, validate=validate.Range(1, 7 * 24 * 3600))
    reserve_s = fields.Integer(strict=True, required=True, validate=validate.Range(0, 7 * 24 * 3600))
    policy = fields.String(required=True, validate=validate.OneOf(["bot:random", "bot:greedy", "forfeit"]))


class GameCreatedData(Schema):
    """v2: ``{"game", "rules_version", "options", "seats", "commitment"}``, ``clock`` only
    in a game created with a turn clock, ``"invite_only": true`` only in one whose
    seats need its invite code, and ``rematch_of`` (a game id) only in a rematch of a
    finished game (all absent otherwise: older histories and other games are byte for
    byte what they were)."""

    game = fields.String(required=True, validate=validate.Length(1, 64))
    rules_version = fields.String(required=True, validate=validate.Length(1, 64))
    options = fields.Dict(keys=fields.String(), required=True)
    seats = fields.Integer(strict=True, required=True, validate=validate.Range(1, MAX_SEAT + 1))
    commitment = fields.String(required=True, validate=HEX64)
    clock = fields.Nested(ClockData, required=False)
    invite_only = StrictBool(required=False, validate=validate.OneOf([True]))
    rematch_of = fields.String(required=False, validate=validate.Regexp(GAME_ID.pattern + r"\Z"))


class GameCreatedPrivate(Schema):
    """``{"invite_hash"}``, in an invite-only game: SHA-256 of its invite code (seen by
    nobody in play, like a seat token's hash)."""

    invite_hash = fields.String(required=True, validate=HEX64)


class SeedRevealedData(Schema):
    """``{"seed": <hex of the secret seed bytes>}``; sha256 of the bytes = the commitment."""

    seed = fields.String(required=True, validate=validate.Regexp(r"([0-9a-f]{2}){16,64}\Z"))


class GameEndedData(Schema):
    """``{"reason", "scores", "winners", "turns"}`` as in the engine contract."""

    reason = fields.String(required=True, validate=validate.Length(1, 64))
    scores = fields.List(fields.Integer(strict=True), required=True)
    winners = fields.List(seat_field(), required=True)
    turns = fields.Integer(strict=True, required=True, validate=validate.Range(min=0))


class SeatTakenData(Schema):
    """``{"seat", "name", "bot"}``: ``bot`` is the bot level, or null for a person. A
    person's seat also says ``"guest": true``, or ``"account": <canonical name>, "guest":
    false`` for a registered player (both absent in events written before accounts
    existed: those persons are guests)."""

    seat = seat_field()
    name = fields.String(required=True, validate=validate.Length(1, MAX_NAME_LENGTH))
    bot = fields.String(required=True, allow_none=True, validate=validate.Length(1, 32))
    account = fields.String(validate=validate.Length(1, MAX_NAME_LENGTH))
    guest = StrictBool()


class SeatTakenPrivate(Schema):
    """``{"token_hash"}``: SHA-256 of the person's seat token (seen by nobody in play)."""

    token_hash = fields.String(required=True, validate=HEX64)


class SeatTokenReissuedData(Schema):
    """``{"seat"}``: the registered player holding the seat took it back with a fresh
    token (the private part: its hash, as in ``SeatTaken``); the old token is void."""

    seat = seat_field()


class InviteRenewedData(Schema):
    """``{"seat"}``: the seat that gave its invite-only game a new invite code (the
    private part: the code's hash, as in ``GameCreated``); the old code seats nobody."""

    seat = seat_field()


class SeatLeftData(Schema):
    """``{"seat"}``: the seat is free again (only before the game starts)."""

    seat = seat_field()


class PlayStartedData(Schema):
    """``{}``: every seat is taken; commands are accepted from now on."""


class GameExpiredData(Schema):
    """``{"reason": "not_started", "open_s"}``: the seconds the game stayed open; or
    ``{"reason": "idle", "idle_s"}``: the seconds it ran with nothing written."""

    JSON_SCHEMA_ONE_OF = (  # the hook below, for the published contract (events.schemas.jsonschema)
        {"properties": {"reason": {"const": "not_started"}}, "required": ["open_s"], "not": {"required": ["idle_s"]}},
        {"properties": {"reason": {"const": "idle"}}, "required": ["idle_s"], "not": {"required": ["open_s"]}},
    )

    reason = fields.String(required=True, validate=validate.OneOf(["not_started", "idle"]))
    open_s = fields.Integer(strict=True, validate=validate.Range(min=0))
    idle_s = fields.Integer(strict=True, validate=validate.Range(min=0))

    @validates_schema
    def _seconds_of_its_reason(self, data: dict[str, Any], **kwargs: Any) -> None:
        wanted = "open_s" if data["reason"] == "not_started" else "idle_s"
        if set(data) & {"open_s", "idle_s"} != {wanted}:
            raise ValidationError(f"reason {data['reason']!r} comes with {wanted} alone", wanted)


class TurnTimedOutData(Schema):
    """``{"seat", "policy", "deadline"}``: the seat whose deadline (ISO 8601 UTC) passed,
    and the clock's policy, which decides for it next."""

    seat = seat_field()
    policy = fields.String(required=True, validate=validate.OneOf(["bot:random", "bot:greedy", "forfeit"]))
    deadline = fields.String(required=True, validate=ISO_UTC)


SHARED_TYPES: tuple[EventType, ...] = (
    EventType(
        "GameCreated",
        GameCreatedData(),
        GameCreatedPrivate(),
        version=GAME_CREATED_VERSION,
        description="A new game: type, options, seats and the seed commitment.",
    ),
    EventType(
        "SeedRevealed",
        SeedRevealedData(),
        description="The secret seed, revealed after the game ended.",
    ),
    EventType("GameEnded", GameEndedData(), description="The game is over: scores and winners."),
    EventType(
        "SeatTaken", SeatTakenData(), SeatTakenPrivate(), description="A person or a bot took a seat."
    ),
    EventType(
        "SeatTokenReissued",
        SeatTokenReissuedData(),
        SeatTakenPrivate(),
        description="A registered player took its seat back: a fresh seat token, the old one void.",
    ),
    EventType("SeatLeft", SeatLeftData(), description="A person left their seat before the start."),
    EventType(
        "InviteRenewed",
        InviteRenewedData(),
        GameCreatedPrivate(),
        description="A seat gave its invite-only game a new invite code; the old one seats nobody.",
    ),
    EventType("PlayStarted", PlayStartedData(), description="Every seat is taken; play begins."),
    EventType(
        "GameExpired",
        GameExpiredData(),
        description=(
            "The game is over without a result: it never started (its seats were not all taken in time),"
            " or nobody acted in it for too long."
        ),
    ),
    EventType(
        "TurnTimedOut",
        TurnTimedOutData(),
        description="A seat let its turn clock's deadline pass; the clock's policy decides for it.",
    ),
)
