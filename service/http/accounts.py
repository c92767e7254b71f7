"""Registered players: register a name, list my games, take my seat back.

- ``POST /v1/players`` ``{"name"}``: reserves the name (and every confusable spelling
  of it, see ``events.accounts.names``) and answers the player key once (201, only
  its hash is stored, ``Cache-Control: no-store``). Charged to the client's creation
  limit like a game creation (429 ``create_rate_limited``); 409 ``name_registered``.
- ``POST /v1/players/me/key``: a fresh player key for the caller's account, shown once
  (201, ``no-store``); the key it was called with is refused from then on (within
  ``service.accounts.store.RECHECK_S`` in other processes). For a key that leaked.
  Charged to the client's creation limit.
- ``GET /v1/players/me/account``: the caller's account name -- what a client signing in
  on another device with a kept player key shows as "signed in as".
- ``GET /v1/players/me/games``: the caller's games newest first, a page at a time,
  each with its status, version and whether the caller is to move (from the last
  notice of the player stream; null until the projector has seen the game).
- ``POST /v1/games/{id}/seats/{seat}/token``: a fresh seat token for a seat the
  caller's account holds; the old one is refused from then on (201). Charged to the
  client's creation limit (each call appends an event).

With a player key as bearer token the game endpoints act for the account's seat of
that game (one per game: joining twice is 409 ``already_seated``); see ``auth``.
"""

from __future__ import annotations

from flask import Blueprint, Response

from engine.table import player_name
from service.http import account_schemas, auth, body, context, games, ratelimit
from service.http.responses import json_response
from service.http.versions import etag

bp = Blueprint("accounts", __name__)
bp.url_value_preprocessor(games.check_game_id)

NO_STORE = {"Cache-Control": "no-store"}


@bp.post("/v1/players")
def register() -> Response:
    body.no_query()
    request = body.json_body(account_schemas.REGISTER)
    name = player_name(request["name"])  # refuses control/bidi characters, bad lengths
    ratelimit.charge(ratelimit.CREATE)  # an account is a name reserved for good
    accounts = context.application().accounts
    assert accounts is not None  # the API is always built with accounts
    registered = accounts.register(name)
    document = {"name": registered.account.name, "player_key": registered.player_key}
    return json_response(document, 201, {**NO_STORE, "Location": "/v1/players/me/games"})


@bp.post("/v1/players/me/key")
def rotate_key() -> Response:
    body.no_query()
    auth.required_account()  # 401 for a key that fits no account, before anything is charged
    ratelimit.charge(ratelimit.CREATE)  # a write, like a reissue
    accounts = context.application().accounts
    assert accounts is not None
    token = auth.bearer_token()
    assert token is not None  # required_account found a player key in it
    rotated = accounts.rotate(token)
    document = {"name": rotated.account.name, "player_key": rotated.player_key}
    return json_response(document, 201, {**NO_STORE})


@bp.get("/v1/players/me/account")
def my_account() -> Response:
    body.no_query()
    account = auth.required_account()  # 401 player_key_required / unauthenticated otherwise
    return json_response({"name": account.name}, headers={**NO_STORE})


@bp.get("/v1/players/me/games")
def my_games() -> Response:
    query = body.query(account_schemas.MY_GAMES)
    body.check_page_limit(query["limit"])
    account = auth.required_account()
    accounts = context.application().accounts
    assert accounts is not None
    ids, cursor = accounts.games_page(account, query.get("cursor"), query["limit"])
    entries = []
    for game_id, notice in zip(ids, accounts.last_notices(account, ids), strict=True):
        entries.append(
            {
                "game_id": game_id,
                "seat": None if notice is None else notice["seat"],
                "status": None if notice is None else notice["status"],
                "version": None if notice is None else notice["version"],
                "to_move": False if notice is None else notice["to_move"],
                "deadline": None if notice is None else notice.get("deadline"),
            }
        )
    document = {"games": entries, "next_cursor": cursor}
    return json_response(document, headers={"Cache-Control": "no-cache"})


@bp.post("/v1/games/<game_id>/seats/<seat:seat>/token")
def reissue(game_id: str, seat: int) -> Response:
    body.no_query()
    account = auth.required_account()
    # Each call appends an event to the game: charged like a creation, so a history
    # cannot be padded with reissues faster than the creation limit allows.
    ratelimit.charge(ratelimit.CREATE)
    joined = context.application().reissue_token(game_id, account, seat)
    document = {"game_id": joined.game_id, "seat": joined.seat, "token": joined.token, "view": joined.view}
    return json_response(document, 201, {**NO_STORE, "ETag": etag(joined.view["version"])})
