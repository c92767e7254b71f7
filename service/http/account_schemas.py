"""Request schemas of the account endpoints (``service.http.accounts``, ``player_stream``)."""

from __future__ import annotations

from marshmallow import fields, validate

from service.http.schemas import QueryInt, Strict


class Register(Strict):
    """``POST /v1/players``."""

    name = fields.String(required=True)


class MyGames(Strict):
    """``GET /v1/players/me/games``: newest first; ``cursor`` from the previous page."""

    limit = QueryInt(load_default=20, validate=validate.Range(min=1))
    cursor = QueryInt(validate=validate.Range(min=0))


class PlayerStreamQuery(Strict):
    """``GET /v1/players/me/stream``: ``after`` = the last notice id seen (or ``Last-Event-ID``);
    ``ticket`` = a player stream ticket (``service.http.tickets``), checked there."""

    after = QueryInt(validate=validate.Range(min=0))
    ticket = fields.String()


REGISTER = Register()
MY_GAMES = MyGames()
PLAYER_STREAM_QUERY = PlayerStreamQuery()
