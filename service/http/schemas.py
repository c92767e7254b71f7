"""Marshmallow schemas of everything a client sends: bodies and query strings.

Unknown fields are rejected (marshmallow's ``RAISE``, stated explicitly), JSON
types are strict (``true`` is not an integer, ``"3"`` is not a number in a body),
and query numbers are plain decimal digits. Game-specific content -- a command, a
game's options -- is passed on as a JSON object and checked by the engine, which
answers with its own rule-violation codes.
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import RAISE, Schema, fields, validate

from engine.registry import game_names
from events.schemas.fields import StrictBool
from service.app.bot_seats import BOT_LEVELS
from service.app.invites import MAX_INVITE_LENGTH

MAX_SEATS = 16
"""Most seats a create request may ask for (each game has its own, lower, maximum)."""

MAX_WAIT_S = 60
"""Largest ``wait`` a client may ask for (the server waits at most ``long_poll_max_s``)."""

STATUSES = ("open", "running", "finished", "expired")


class StrictInt(fields.Integer):
    """A JSON integer: no booleans, no floats, no strings."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if type(value) is not int:
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)  # type: ignore[no-any-return]


class QueryInt(fields.Integer):
    """A query-string integer: decimal digits only (no sign, spaces or underscores)."""

    _DIGITS = re.compile(r"[0-9]{1,18}")

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int:
        if not isinstance(value, str) or not self._DIGITS.fullmatch(value):
            raise self.make_error("invalid")
        return int(value)


class QueryNumber(fields.Float):
    """A query-string number of seconds as a JSON number is written (``13.5``, ``1e-05``,
    ``-0.0``): the contract says ``type: number``, so every spelling a client's number
    formatting gives is read; the range check is the field's validator."""

    _NUMBER = re.compile(r"-?[0-9]{1,18}(\.[0-9]{1,32})?([eE][+-]?[0-9]{1,3})?")

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> float:
        if not isinstance(value, str) or not self._NUMBER.fullmatch(value):
            raise self.make_error("invalid")
        number = float(value)
        if number != number or number in (float("inf"), float("-inf")):
            raise self.make_error("invalid")
        return number


class Strict(Schema):
    class Meta:
        unknown = RAISE


class CreateGame(Strict):
    """``POST /v1/games``."""

    game = fields.String(required=True)
    players = StrictInt(required=True, validate=validate.Range(1, MAX_SEATS))
    options = fields.Dict(
        keys=fields.String(), values=fields.Raw(allow_none=True), load_default=dict
    )
    bots = fields.Dict(
        keys=fields.String(validate=validate.Regexp(r"^(0|[1-9][0-9]?)$")),
        values=fields.String(validate=validate.OneOf(BOT_LEVELS)),
        load_default=dict,
    )
    # The turn clock (docs/api.md, "Turn clocks"): checked field by field by
    # engine.turnclock.check_clock (422 invalid_clock); null or absent = no clock.
    clock = fields.Raw(load_default=None, allow_none=True)
    # Seats only for people with the invite code the answer shows once (service.app.invites).
    invite_only = StrictBool(load_default=False)


class Join(Strict):
    """``POST /v1/games/{game_id}/seats`` (``name``: a guest's; a player key brings its own)."""

    name = fields.String(load_default=None)
    seat = StrictInt(load_default=None, allow_none=True, validate=validate.Range(0, MAX_SEATS - 1))
    invite = fields.String(load_default=None, allow_none=True, validate=validate.Length(1, MAX_INVITE_LENGTH))


class Submit(Strict):
    """``POST /v1/games/{game_id}/commands``."""

    command = fields.Dict(keys=fields.String(), values=fields.Raw(allow_none=True), required=True)
    expected_version = StrictInt(load_default=None, allow_none=True, validate=validate.Range(min=0))

    def load_fast(self, data: Any) -> dict[str, Any]:
        """What :meth:`load` gives, without marshmallow's per-field machinery for the one
        shape every valid body has (the command path's hot spot). Anything else --
        including every invalid body -- goes through :meth:`load`, so errors and edge
        cases are marshmallow's alone. ``tests/unit/test_http_schemas.py`` checks that
        both agree on arbitrary JSON."""
        if type(data) is dict and type(data.get("command")) is dict and data.keys() <= _SUBMIT_KEYS:
            version = data.get("expected_version")
            if version is None or (type(version) is int and version >= 0):
                return {"command": dict(data["command"]), "expected_version": version}
        return self.load(data)  # type: ignore[no-any-return]


_SUBMIT_KEYS = frozenset(Submit._declared_fields)


class ViewQuery(Strict):
    """``GET /v1/games/{game_id}``: ``at`` (a past version) or a long poll (``wait``, ``after``)."""

    at = QueryInt(validate=validate.Range(min=1))
    wait = QueryNumber(validate=validate.Range(0, MAX_WAIT_S))
    after = QueryInt()
    # A finished game's view as any seat sees it (its whole history is public by then).
    seat = QueryInt(validate=validate.Range(0, MAX_SEATS - 1))


FULL = "full"
COMPACT = "compact"


class LegalQuery(Strict):
    """``GET /v1/games/{game_id}/legal``: ``form`` = ``full`` (enumerated) or ``compact``."""

    form = fields.String(load_default=FULL, validate=validate.OneOf((FULL, COMPACT)))


class Page(Strict):
    """``GET /v1/games/{game_id}/events``."""

    after = QueryInt(load_default=0)
    limit = QueryInt(load_default=100, validate=validate.Range(min=1))


class StreamQuery(Strict):
    """``GET /v1/games/{game_id}/events/stream``: ``ticket`` is a stream ticket
    (``service.http.tickets``), checked there."""

    after = QueryInt()
    ticket = fields.String()


class GameList(Strict):
    """``GET /v1/games``."""

    game = fields.String(validate=validate.OneOf(game_names()))
    status = fields.String(validate=validate.OneOf(STATUSES))
    limit = QueryInt(load_default=20, validate=validate.Range(min=1))
    cursor = fields.String(validate=validate.Length(1, 200))


# One instance each: building a marshmallow schema costs more than loading with it, and
# ``load`` keeps no state on the instance, so threads may share them.
CREATE_GAME = CreateGame()
JOIN = Join()
SUBMIT = Submit()
VIEW_QUERY = ViewQuery()
PAGE = Page()
LEGAL_QUERY = LegalQuery()
STREAM_QUERY = StreamQuery()
GAME_LIST = GameList()
