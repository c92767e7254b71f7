"""Invite-only games over the API on real Redis: only people with the code take seats.

The threat: a stranger who sees someone's open game in the lobby takes its last free
seat and never moves, holding the game until it expires as idle (docs/security.md).
An invite-only game (``"invite_only": true``) admits only callers who bring the code
its creator was shown once; nothing a viewer receives holds the code or its hash
(``test_http_noleak.py`` checks every read of a whole game for both).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis
from support.http_games import FlaskApi, create_game, play_randomly, seat_everyone
from support.http_setup import app_settings, make_app
from support.redis import TestRedis

from events.projections import ReadModels, Updater
from service.app.application import Application
from service.app.errors import InviteRequired
from service.bootstrap import Services

pytest_plugins = ("support.http_app",)  # fixtures: http_services, http_app, api


def create_invite_only(api: FlaskApi, game: str = "schlitzohr", players: int = 2, **extra: Any) -> tuple[str, str]:
    """A new invite-only game: its id and its invite code."""
    reply = api.call("POST", "/v1/games", body={"game": game, "players": players, "invite_only": True, **extra})
    assert reply.status == 201, reply.body
    assert reply.headers["Cache-Control"] == "no-store"  # the code is shown this once
    assert reply.body["invite_only"] is True and len(reply.body["invite"]) >= 32
    return reply.body["game_id"], reply.body["invite"]


def join(api: FlaskApi, game_id: str, body: dict[str, Any], token: str | None = None) -> Any:
    return api.call("POST", f"/v1/games/{game_id}/seats", body=body, token=token)


def test_only_a_caller_with_the_invite_code_takes_a_seat(api: FlaskApi) -> None:
    game_id, invite = create_invite_only(api)
    before = api.call("GET", f"/v1/games/{game_id}").body
    for body in ({"name": "eve"}, {"name": "eve", "invite": invite[:-1] + "x"}, {"name": "eve", "invite": None}):
        refused = join(api, game_id, body)
        assert refused.status == 403 and refused.code == "invite_required", body
        assert refused.body["detail"] == "this game's seats are taken by invitation: bring its invite code"
    assert api.call("GET", f"/v1/games/{game_id}").body == before  # nothing was written
    assert join(api, game_id, {"name": "eve", "invite": ""}).code == "invalid_body"
    assert join(api, game_id, {"name": "eve", "invite": "x" * 65}).code == "invalid_body"

    tokens = seat_everyone(api, game_id, 2, invite)
    view = api.call("GET", f"/v1/games/{game_id}", token=tokens[0]).body
    assert view["status"] == "running" and view["invite_only"] is True and "invite" not in view
    assert play_randomly(api, game_id, tokens, b"invite")["status"] == "finished"
    # The hidden part of GameCreated is sealed like any other: the audit re-checks it.
    report = api.call("GET", f"/v1/games/{game_id}/verification").body
    assert report["ok"] is True, report
    created = api.call("GET", f"/v1/games/{game_id}/events?limit=1").body["events"][0]
    assert created["data"]["invite_only"] is True and created["private"]["invite_hash"]  # public now
    assert invite not in json.dumps(api.call("GET", f"/v1/games/{game_id}/export").body)


def test_other_games_stay_open_to_all_and_ignore_an_invite(api: FlaskApi) -> None:
    reply = api.call("POST", "/v1/games", body={"game": "abluxxen", "players": 2})
    assert reply.status == 201 and reply.body["invite_only"] is False and "invite" not in reply.body
    assert "no-store" not in reply.headers.get("Cache-Control", "")
    game_id = reply.body["game_id"]
    assert join(api, game_id, {"name": "ada"}).status == 201
    assert join(api, game_id, {"name": "bob", "invite": "anything-at-all"}).status == 201
    # One game's code opens no other game.
    other, _ = create_invite_only(api)
    _, code = create_invite_only(api)
    assert join(api, other, {"name": "ada", "invite": code}).code == "invite_required"
    assert api.call("POST", "/v1/games", body={"game": "abluxxen", "players": 2, "invite_only": 1}).code == (
        "invalid_body"
    )


def test_a_registered_player_needs_the_code_too_but_takes_its_own_seat_back_without_it(api: FlaskApi) -> None:
    player_key = api.call("POST", "/v1/players", body={"name": "invitee"}).body["player_key"]
    game_id, invite = create_invite_only(api, bots={"1": "random"})
    assert join(api, game_id, {}, token=player_key).code == "invite_required"
    joined = join(api, game_id, {"invite": invite}, token=player_key)
    assert joined.status == 201 and joined.body["view"]["status"] == "running"
    # A lost token comes back by the player key alone: the seat is already its own.
    fresh = api.call("POST", f"/v1/games/{game_id}/seats/0/token", token=player_key)
    assert fresh.status == 201, fresh.body


def test_the_lobby_lists_an_invite_only_game_as_such(api: FlaskApi, http_services: Services) -> None:
    private, _ = create_invite_only(api, game="abluxxen")
    public = create_game(api, "abluxxen", 2)
    updater = Updater(http_services.store, ReadModels(http_services.redis, http_services.store.prefix))
    for game_id in (private, public):
        updater.update(game_id)
    listed = {g["game_id"]: g for g in api.call("GET", "/v1/games?status=open").body["games"]}
    assert listed[private]["invite_only"] is True and listed[public]["invite_only"] is False


def test_the_invite_check_survives_snapshots_and_a_cold_start(api: FlaskApi, http_services: Services) -> None:
    """The code's hash lives in the history (``GameCreated``'s hidden part), so a table
    rebuilt from a snapshot or from the events alone still refuses a stranger."""
    game_id, invite = create_invite_only(api, players=4)
    assert join(api, game_id, {"name": "ada", "invite": invite}).status == 201
    for name, every in (("bob", 1), ("cy", 1_000)):  # 1: snapshots at once; 1,000: the events
        cold = Application(http_services.store, snapshot_every=every)  # nothing cached
        table = cold.tables.load(game_id)
        assert table.invite_only and table.invite_hash is not None
        with pytest.raises(InviteRequired):
            cold.join(game_id, "eve")
        assert cold.join(game_id, name, invite=invite).seat in (1, 2)
    assert http_services.store.load_snapshot(game_id) is not None


def test_a_seat_renews_the_invite_and_the_old_code_seats_nobody(api: FlaskApi) -> None:
    """A lost code, or one that reached the wrong people: a seat makes a new one before
    the start, and from then on the old one is refused."""
    game_id, old = create_invite_only(api, players=3, options={"turn_cap": 12})
    ada = join(api, game_id, {"name": "ada", "invite": old}).body["token"]
    path = f"/v1/games/{game_id}/invite"
    assert api.call("POST", path).status == 401  # a seat asks, nobody else
    renewed = api.call("POST", path, token=ada)
    assert renewed.status == 201 and renewed.headers["Cache-Control"] == "no-store", renewed.body
    new = renewed.body["invite"]
    assert renewed.body["game_id"] == game_id and new != old and len(new) >= 32
    assert join(api, game_id, {"name": "eve", "invite": old}).code == "invite_required"
    bob = join(api, game_id, {"name": "bob", "invite": new}).body["token"]
    renewal = [e for e in api.call("GET", f"/v1/games/{game_id}/events?limit=100").body["events"]
               if e["type"] == "InviteRenewed"]
    assert [(e["data"], e["private"]) for e in renewal] == [({"seat": 0}, None)]  # who, not the hash

    other = create_game(api, "abluxxen", 2)
    stranger = join(api, other, {"name": "ada"}).body["token"]
    assert api.call("POST", f"/v1/games/{other}/invite", token=stranger).code == "not_invite_only"
    assert api.call("POST", path, token=stranger).status == 401  # another game's token
    cy = join(api, game_id, {"name": "cy", "invite": new}).body["token"]  # the game starts
    assert api.call("POST", path, token=cy).code == "game_already_started"
    assert play_randomly(api, game_id, [ada, bob, cy], b"renewed")["status"] == "finished"
    report = api.call("GET", f"/v1/games/{game_id}/verification").body
    assert report["ok"] is True, report  # the audit accepts the renewal


def test_renewals_count_against_the_creation_limit(
    redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str
) -> None:
    """Each renewal appends an event: a seat cannot pad a history with renewals faster
    than its address may create games (429 ``create_rate_limited``, nothing written)."""
    app = make_app(app_settings(redis_target, key_prefix, create_limit_per_minute=3), redis_client)
    api = FlaskApi(app.test_client())
    game_id, invite = create_invite_only(api, players=3)  # 1 of 3
    ada = join(api, game_id, {"name": "ada", "invite": invite}).body["token"]
    path = f"/v1/games/{game_id}/invite"
    assert [api.call("POST", path, token=ada).status for _ in range(2)] == [201, 201]  # 3 of 3
    version = api.call("GET", f"/v1/games/{game_id}").body["version"]
    refused = api.call("POST", path, token=ada)
    assert refused.status == 429 and refused.code == "create_rate_limited"
    assert api.call("GET", f"/v1/games/{game_id}").body["version"] == version
