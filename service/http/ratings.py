"""Ratings: the leaderboard of a game type, and one account's or bot level's rating history.

Read from the ratings projection (``events.projections.ratings``): a game counts once
the projector rated it, shortly after it ended. Nothing here comes from a running
game: a rating changes only when a game ends, from its result, which is public then.
Pages are bounded by ``limit`` (at most ``page_size_max``) and every request is charged
to the client's ordinary request limit, like any read.
"""

from __future__ import annotations

from flask import Blueprint, Response
from marshmallow import fields, validate

from engine.errors import UNKNOWN_GAME
from engine.model import JSON
from engine.registry import game_names
from service.app.bot_seats import BOT_LEVELS
from service.http import body, context
from service.http.names import name_in_path
from service.http.problems import Problem
from service.http.responses import json_response
from service.http.schemas import QueryInt, Strict

bp = Blueprint("ratings", __name__, url_prefix="/v1/ratings")

NO_CACHE = {"Cache-Control": "no-cache"}


class RatingsPage(Strict):
    """``GET /v1/ratings/{game}`` and the history pages."""

    limit = QueryInt(load_default=20, validate=validate.Range(min=1))
    cursor = fields.String(validate=validate.Length(1, 200))


PAGE = RatingsPage()


def check_game(game: str) -> None:
    """404 ``unknown_game`` unless ``game`` is a game type (a path names a resource)."""
    if game not in game_names():
        raise Problem(404, UNKNOWN_GAME, f"no game type {game!r}", details={"games": game_names()})


def page_query() -> tuple[str | None, int]:
    query = body.query(PAGE)
    body.check_page_limit(query["limit"])
    return query.get("cursor"), query["limit"]


def bad_cursor() -> Problem:
    return Problem(
        400, "invalid_parameter", "invalid cursor", errors={"cursor": ["not a cursor of this API"]}
    )


@bp.get("/<game>")
def leaderboard(game: str) -> Response:
    check_game(game)
    cursor, limit = page_query()
    try:
        page = context.reads().leaderboard(game, cursor, limit)
    except ValueError:  # the only input left unchecked here is the opaque cursor
        raise bad_cursor() from None
    document = {"game": game, "ratings": page.entries, "next_cursor": page.next_cursor}
    return json_response(document, headers=NO_CACHE)


@bp.get("/<game>/players/<name>")
def player_history(game: str, name: str) -> Response:
    check_game(game)
    return _history(game, name_in_path(name), bot=False)


@bp.get("/<game>/bots/<level>")
def bot_history(game: str, level: str) -> Response:
    check_game(game)
    if level not in BOT_LEVELS:
        raise Problem(
            404,
            "unknown_bot_level",
            f"no bot level {level!r}",
            details={"levels": list(BOT_LEVELS)},
        )
    return _history(game, level, bot=True)


def _history(game: str, name: str, bot: bool) -> Response:
    cursor, limit = page_query()
    try:
        page = context.reads().rating_history(game, name, bot, cursor, limit)
    except ValueError:
        raise bad_cursor() from None
    document = {
        "game": game,
        "name": name,
        "bot": bot,
        "rating": context.reads().rating_of(game, name, bot),
        "history": page.entries,
        "next_cursor": page.next_cursor,
    }
    return json_response(document, headers=NO_CACHE)


def player_ratings(name: str) -> JSON:
    """The ``ratings`` block of a player's page: per game type the account's rating (null
    if never rated) and its latest rated games (``history_next``: the cursor of the next
    page at ``/v1/ratings/{game}/players/{name}``)."""
    reads = context.reads()
    out: JSON = {}
    for game in game_names():
        page = reads.rating_history(game, name, False)
        out[game] = {
            "rating": reads.rating_of(game, name, False),
            "history": page.entries,
            "history_next": page.next_cursor,
        }
    return out
