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
    accounts = context.application().accounts  # issue 15: guests vs registered players
    registered = accounts is not None and accounts.is_registered(name)
    # A registered name's totals are its account's games only: guests who sat under
    # the name (before it was registered) count apart, and cannot pad the account's.
    document = context.reads().player_totals(name, account=registered).to_json()
    document["registered"] = registered
    document["ratings"] = ratings.player_ratings(name)
    return json_response(document, headers={"Cache-Control": "no-cache"})
