"""Player totals over finished games, by player name, and the account's ratings (from the
projector's read models; ratings: ``service.http.ratings``)."""

from __future__ import annotations

from flask import Blueprint, Response

from service.http import body, context, ratings
from service.http.names import name_in_path
from service.http.responses import json_response

bp = Blueprint("players", __name__, url_prefix="/v1/players")


@bp.get("/<name>")
def totals(name: str) -> Response:
    body.no_query()
    name = name_in_path(name)
    document = context.reads().player_totals(name).to_json()
    accounts = context.application().accounts  # issue 15: guests vs registered players
    document["registered"] = accounts is not None and accounts.is_registered(name)
    document["ratings"] = ratings.player_ratings(name)
    return json_response(document, headers={"Cache-Control": "no-cache"})
