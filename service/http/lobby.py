"""The lobby: create a game, list games, take a seat (the token is shown once), leave before the start.

Creating a game is an expensive operation (its bots' turns cost worker time): it is
charged to the client's creation limit (``ratelimit.CREATE``), each strong-bot seat
weighing ``strong_seat_cost`` more; 429 ``create_rate_limited`` past it.

A game starts when its last seat is taken; seats given to bots at creation are
taken at once. Joining answers with the seat's token and its view; the token is
stored only as a hash, so it cannot be shown again (``Cache-Control: no-store``).
"""

from __future__ import annotations

from collections.abc import Sequence

from flask import Blueprint, Response

from engine.errors import INVALID_SEAT, RuleViolation
from service.app.errors import Forbidden
from service.http import auth, body, clients, context, games, ratelimit, schemas
from service.http.problems import Problem
from service.http.responses import json_response
from service.http.versions import etag, version_headers

bp = Blueprint("lobby", __name__, url_prefix="/v1/games")
bp.url_value_preprocessor(games.check_game_id)


@bp.post("")
def create_game() -> Response:
    body.no_query()
    request = body.json_body(schemas.CREATE_GAME)
    players: int = request["players"]
    levels: list[str | None] = [None] * players
    for seat, level in request["bots"].items():
        if int(seat) >= players:
            raise RuleViolation(
                INVALID_SEAT, f"no seat {seat} in a game of {players}", {"seats": players}
            )
        levels[int(seat)] = level
    charge_creation(levels)
    creator = clients.creator_id()
    view = context.application().create_game(
        request["game"], request["options"], levels, creator, clock=request["clock"], invite_only=request["invite_only"]
    )
    headers = {**version_headers(view["version"]), "Location": f"/v1/games/{view['game_id']}"}
    if "invite" in view:
        headers["Cache-Control"] = "no-store"  # the invite code is shown this once
    return json_response(view, 201, headers)


def charge_creation(levels: Sequence[str | None]) -> None:
    """Charge a new game with these seats' bot levels to the client's creation limit,
    each strong-bot seat weighing ``strong_seat_cost`` more (429 past it)."""
    strong = sum(level == "strong" for level in levels)
    ratelimit.charge(ratelimit.CREATE, 1 + strong * context.settings().strong_seat_cost)


@bp.get("")
def list_games() -> Response:
    """Games newest first, filtered by type and status, a page at a time (from the lobby
    read model: a game appears once the projector has seen it)."""
    query = body.query(schemas.GAME_LIST)
    body.check_page_limit(query["limit"])
    try:
        page = context.reads().list_games(
            status=query.get("status"),
            game_type=query.get("game"),
            cursor=query.get("cursor"),
            limit=query["limit"],
        )
    except ValueError:  # the only input left unchecked here is the opaque cursor
        raise Problem(
            400,
            "invalid_parameter",
            "invalid cursor",
            errors={"cursor": ["not a cursor of this API"]},
        ) from None
    return json_response(page.to_json(), headers={"Cache-Control": "no-cache"})


@bp.post("/<game_id>/seats")
def join(game_id: str) -> Response:
    body.no_query()
    request = body.json_body(schemas.JOIN)
    # A player key takes the seat for its account (under the account's name); anything
    # else is a guest, whose free name must not be a registered one.
    account = auth.caller_account()
    joined = context.application().join(game_id, request["name"], request["seat"], account, request["invite"])
    document = {
        "game_id": joined.game_id,
        "seat": joined.seat,
        "token": joined.token,
        "view": joined.view,
    }
    headers = {
        "Location": f"/v1/games/{game_id}/seats/{joined.seat}",
        "Cache-Control": "no-store",  # the token is shown once and must not be cached anywhere
        "ETag": etag(joined.view["version"]),
    }
    return json_response(document, 201, headers)


@bp.post("/<game_id>/invite")
def renew_invite(game_id: str) -> Response:
    """A new invite code for an invite-only game, asked by one of its seats before the
    start: the old code seats nobody any more. Shown once (``no-store``)."""
    body.no_query()
    token = auth.required_token()
    # Each call appends an event to the game: charged like a creation (as a seat token's
    # reissue is), so a history cannot be padded with renewals faster than that.
    ratelimit.charge(ratelimit.CREATE)
    invite = context.application().renew_invite(game_id, token)
    return json_response({"game_id": game_id, "invite": invite}, 201, {"Cache-Control": "no-store"})


@bp.post("/<game_id>/rematch")
def rematch(game_id: str) -> Response:
    """A seat of a finished game takes its seat again in the game's rematch, which the
    first such call creates like it (``service.app.rematches``). Answered like a join
    (the token shown once), with ``invite`` too when this call created an invite-only
    rematch."""
    body.no_query()
    token = auth.required_token()
    # It may create a game, whose bots cost worker time: charged as a creation always
    # (the caller cannot know whether it will be the first), on the table it loads anyway.
    rematched = context.application().rematch(game_id, token, clients.creator_id(), charge=charge_creation)
    joined = rematched.joined
    document = {"game_id": joined.game_id, "seat": joined.seat, "token": joined.token, "view": joined.view}
    if rematched.invite is not None:
        document["invite"] = rematched.invite
    headers = {
        "Location": f"/v1/games/{joined.game_id}/seats/{joined.seat}",
        "Cache-Control": "no-store",  # the token (and the invite) are shown once
        "ETag": etag(joined.view["version"]),
    }
    return json_response(document, 201, headers)


@bp.get("/<game_id>/rematch")
def find_rematch(game_id: str) -> Response:
    """Which game is ``game_id``'s rematch (``rematch``: null while none was asked for),
    for the other players' pages to find it."""
    body.no_query()
    found = context.application().rematch_of(game_id)
    return json_response({"game_id": game_id, "rematch": found}, headers={"Cache-Control": "no-cache"})


@bp.delete("/<game_id>/seats/<seat:seat>")
def leave(game_id: str, seat: int) -> Response:
    body.no_query()
    token = auth.required_token()
    holder = context.application().seat_of(game_id, token)
    if holder != seat:
        raise Forbidden(f"this token holds seat {holder}, not seat {seat}", seat=holder)
    view = context.application().leave(game_id, token)
    return json_response(view, headers=version_headers(view["version"]))
