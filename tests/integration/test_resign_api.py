"""Resigning over the API on real Redis (``engine.resign``): a person gives a running
game up with ``{"kind": "resign"}`` through the one command path, on their turn or not,
and the history that records it verifies -- a forged one does not.

Before, a person could only walk away: the others waited for a turn clock, if the game
had one, or for the game to expire idle.
"""

from __future__ import annotations

import json
from typing import Any

import redis
from support.audit import rehash
from support.http_games import FlaskApi, create_game, play_randomly, seat_everyone

from events.audit.verify import verify_lines
from events.projections import ReadModels, Updater
from events.projections.rating_keys import RatingKeys
from service.bootstrap import Services

pytest_plugins = ("support.http_app",)  # fixtures: http_services, http_app, api

RESIGN = {"command": {"kind": "resign"}}


def view(api: FlaskApi, game_id: str, token: str | None = None) -> Any:
    return api.call("GET", f"/v1/games/{game_id}", token=token).body


def resign(api: FlaskApi, game_id: str, token: str | None, version: int, key: str | None = None) -> Any:
    headers = {"If-Match": f'"{version}"', **({"Idempotency-Key": key} if key else {})}
    return api.call("POST", f"/v1/games/{game_id}/commands", token=token, body=RESIGN, headers=headers)


def acting(game_view: dict[str, Any]) -> int:
    return int(min(game_view["to_act"], key=int))


def test_a_schlitzohr_seat_resigns_out_of_turn_and_the_others_play_on_to_a_verified_end(api: FlaskApi) -> None:
    game_id = create_game(api, "schlitzohr", 3, options={"turn_cap": 12})
    tokens = seat_everyone(api, game_id, 3)
    before = view(api, game_id)
    leaver = (acting(before) + 1) % 3
    first = resign(api, game_id, tokens[leaver], before["version"], key="give-up")
    assert first.status == 200, first.body
    assert [e["type"] for e in first.body["events"]] == ["SeatForfeited"]
    assert first.body["view"]["state"]["forfeited"] == [leaver]
    assert first.body["view"]["to_act"] == before["to_act"]  # the active seat plays on
    # A retry gets the first answer again and writes nothing; another ask is refused.
    retry = resign(api, game_id, tokens[leaver], before["version"], key="give-up")
    assert (retry.status, retry.body) == (200, first.body)
    again = resign(api, game_id, tokens[leaver], first.body["version"], key="once-more")
    assert (again.status, again.code) == (422, "seat_out")
    assert view(api, game_id)["version"] == first.body["version"]
    # /legal never offers it, to the active seat or to the seat that left.
    for seat in range(3):
        legal = api.call("GET", f"/v1/games/{game_id}/legal", token=tokens[seat]).body
        assert all(c["kind"] != "resign" for c in legal["commands"])
        assert (seat == leaver) <= (legal["commands"] == [])
    final = play_randomly(api, game_id, tokens, b"on without it")
    assert final["status"] == "finished" and leaver not in final["result"]["winners"]
    report = api.call("GET", f"/v1/games/{game_id}/verification").body
    assert report["ok"] is True, report


def test_an_abluxxen_resignation_ends_the_game_reveals_the_seed_and_verifies(api: FlaskApi, http_services: Services) -> None:
    game_id = create_game(api, "abluxxen", 2)
    tokens = seat_everyone(api, game_id, 2)
    start = view(api, game_id)
    waiting = 1 - acting(start)
    out = resign(api, game_id, tokens[waiting], start["version"])
    assert out.status == 200, out.body
    assert [e["type"] for e in out.body["events"]] == ["GameEnded"]
    ended = view(api, game_id)
    assert ended["status"] == "finished" and ended["seed"] is not None
    assert ended["result"]["reason"] == "forfeit" and ended["result"]["winners"] == [1 - waiting]
    late = resign(api, game_id, tokens[1 - waiting], ended["version"])
    assert (late.status, late.code) == (422, "game_over")
    assert api.call("GET", f"/v1/games/{game_id}/verification").body["ok"] is True
    # A dishonest server that makes the other seat the loser, history re-sealed: the
    # re-run of the resignation gives other events, so the verifier finds the forgery.
    events = [json.loads(text) for text in http_services.app.store.stored_texts(game_id)]
    at = next(e["version"] for e in events if e["command"] == {"kind": "resign"})
    forged = [{**e, "actor": {"kind": "seat", "seat": 1 - waiting}} if e["version"] == at else e for e in events]
    report = verify_lines([json.dumps(e) for e in rehash(forged)])
    assert not report.ok and report.discrepancy is not None and report.discrepancy.version == at


def test_who_may_not_resign_is_told_why_and_nothing_is_written(api: FlaskApi) -> None:
    waiting = create_game(api, "abluxxen", 3)
    (early,) = seat_everyone(api, waiting, 1)
    refused = resign(api, waiting, early, view(api, waiting)["version"])
    assert (refused.status, refused.code) == (422, "game_not_started")  # it may leave its seat instead
    game_id = create_game(api, "schlitzohr", 2, bots={"1": "random"})
    open_view = view(api, game_id)
    assert resign(api, game_id, None, open_view["version"]).status == 401
    (token,) = seat_everyone(api, game_id, 1)
    running = view(api, game_id)
    assert (resign(api, game_id, None, running["version"]).status) == 401  # a spectator
    # Without the version it acted on, as any command.
    bare = api.call("POST", f"/v1/games/{game_id}/commands", token=token, body=RESIGN)
    assert (bare.status, bare.code) == (428, "version_required")
    malformed = api.call(
        "POST", f"/v1/games/{game_id}/commands", token=token,
        body={"command": {"kind": "resign", "seat": 1}}, headers={"If-Match": f'"{running["version"]}"'},
    )
    assert (malformed.status, malformed.code) == (422, "malformed_command"), malformed.body
    assert malformed.body["details"] == {"field": "seat"}
    now = view(api, game_id)  # the bot may have moved meanwhile; nothing else was written
    done = resign(api, game_id, token, now["version"])
    assert done.status == 200, done.body
    assert view(api, game_id)["result"]["winners"] == [1]  # the bot's seat


def test_a_seat_that_resigned_long_before_the_end_is_rated_last(
    api: FlaskApi, http_services: Services, redis_client: redis.Redis, key_prefix: str
) -> None:
    keys = [api.call("POST", "/v1/players", body={"name": n}).body["player_key"] for n in ("Ann", "Bob")]
    game_id = create_game(api, "schlitzohr", 3, options={"turn_cap": 12})
    tokens = [api.call("POST", f"/v1/games/{game_id}/seats", token=k, body={}).body["token"] for k in keys]
    guest = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": "Cleo"})  # not rated
    tokens.append(guest.body["token"])
    start = view(api, game_id)
    assert resign(api, game_id, tokens[1], start["version"]).status == 200  # Bob, out of turn
    # The projector follows the game as it goes: the resignation is long folded when the
    # game ends, and the end's own batch does not show it.
    projector = Updater(http_services.app.store, ReadModels(redis_client, key_prefix))
    projector.update(game_id)
    final = play_randomly(api, game_id, tokens, b"rated after a resignation")
    assert final["result"]["reason"] != "forfeit"  # ended by the turn cap, long after
    projector.update(game_id)
    record = json.loads(redis_client.hget(RatingKeys(key_prefix, "schlitzohr").record, game_id))
    ranks = {p["id"]: p["rank"] for p in record["players"]}
    assert ranks["player:Bob"] == 3 and ranks["player:Ann"] < 3, (ranks, final["result"])
