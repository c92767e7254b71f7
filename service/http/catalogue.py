"""The catalogue: which games exist, their options (defaults, limits), their commands.

Static per deployment (it changes only with the code), so it is cacheable.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from engine.errors import UNKNOWN_GAME, RuleViolation
from engine.model import JSON
from engine.registry import game_names, get_game
from engine.resign import RESIGN_SPEC
from service.app.bot_seats import BOT_LEVELS
from service.http import body
from service.http.problems import Problem
from service.http.responses import json_response

bp = Blueprint("catalogue", __name__, url_prefix="/v1/catalogue")

CACHE = {"Cache-Control": "public, max-age=300"}


def game_entry(name: str) -> JSON:
    """What a client needs to know to create and play a game of ``name``."""
    game: Any = get_game(name)
    return {
        "name": game.name,
        "title": game.title,
        "rules_version": game.rules_version,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "options": [spec.to_json() for spec in game.option_specs],
        # resign is the table's, the same in every game (engine.resign): listed last.
        "commands": [spec.to_json() for spec in (*game.command_specs, RESIGN_SPEC)],
        "bot_levels": list(BOT_LEVELS),
    }


@bp.get("")
def catalogue() -> Response:
    body.no_query()
    return json_response({"games": [game_entry(name) for name in game_names()]}, headers=CACHE)


@bp.get("/<name>")
def one_game(name: str) -> Response:
    body.no_query()
    try:
        entry = game_entry(name)
    except RuleViolation as unknown:
        # In a path, an unknown game is a resource that does not exist.
        raise Problem(404, UNKNOWN_GAME, unknown.message, details=unknown.details) from None
    return json_response(entry, headers=CACHE)
