"""Rematches over the API on real Redis (``service.app.rematches``): the players of a
finished game play it again, each in the same seat, in one new game they all find.

Before, *Play again* made a new game the other players never heard of, with their
seats free for anyone; now the first seat to ask creates the rematch, every other seat
finds it (``GET .../rematch``) and takes its own seat there -- an invite-only one
without the code -- and only the seats of the finished game may ask.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import threading
from typing import Any

import redis
from support.http_games import FlaskApi, create_game, play_randomly, seat_everyone
from support.http_setup import app_settings, make_app
from support.processes import ROOT
from support.redis import TestRedis

from service.app.rematches import rematch_key

pytest_plugins = ("support.http_app",)  # fixtures: http_services, http_app, api


def finished_game(api: FlaskApi, *, players: int = 2, seed: bytes = b"rematch", **extra: Any) -> tuple[str, list[str]]:
    """A finished Schlitzohr game of guests player0.. (and its seat tokens)."""
    game_id = create_game(api, "schlitzohr", players, options={"turn_cap": 10}, **extra)
    tokens = seat_everyone(api, game_id, players - len(extra.get("bots", {})))
    assert play_randomly(api, game_id, tokens, seed)["status"] == "finished"
    return game_id, tokens


def ask(api: FlaskApi, game_id: str, token: str | None) -> Any:
    return api.call("POST", f"/v1/games/{game_id}/rematch", token=token)


def test_the_first_seat_creates_the_rematch_and_the_other_finds_and_joins_it(api: FlaskApi) -> None:
    game_id, tokens = finished_game(api)
    assert api.call("GET", f"/v1/games/{game_id}/rematch").body == {"game_id": game_id, "rematch": None}

    first = ask(api, game_id, tokens[1])
    assert first.status == 201 and first.headers["Cache-Control"] == "no-store", first.body
    rematch = first.body["game_id"]
    assert rematch != game_id and first.body["seat"] == 1 and "invite" not in first.body
    view = first.body["view"]
    assert view["rematch_of"] == game_id and view["status"] == "open" and view["you"] == 1
    assert view["options"] == api.call("GET", f"/v1/games/{game_id}").body["options"]
    assert view["seats"][1]["name"] == "player1" and view["seats"][0]["name"] is None
    # The other seat's page finds it, and its ask takes seat 0 there: the game starts.
    assert api.call("GET", f"/v1/games/{game_id}/rematch").body == {"game_id": game_id, "rematch": rematch}
    second = ask(api, game_id, tokens[0])
    assert second.status == 201 and second.body["game_id"] == rematch and second.body["seat"] == 0
    assert second.body["view"]["status"] == "running"
    # The rematch plays like any game, and its history says what it is.
    assert play_randomly(api, rematch, [second.body["token"], first.body["token"]], b"again")["status"] == "finished"
    created = api.call("GET", f"/v1/games/{rematch}/events?limit=1").body["events"][0]
    assert created["data"]["rematch_of"] == game_id
    report = api.call("GET", f"/v1/games/{rematch}/verification").body
    assert report["ok"] is True, report
    # Other games say they are no rematch.
    assert api.call("GET", f"/v1/games/{game_id}").body["rematch_of"] is None


def test_the_lobby_marks_a_rematch(api: FlaskApi, http_services: Any) -> None:
    """A stranger sees in the lobby that an open game is its players' rematch."""
    from events.projections import ReadModels, Updater

    game_id, tokens = finished_game(api, seed=b"lobby")
    rematch = ask(api, game_id, tokens[0]).body["game_id"]
    updater = Updater(http_services.store, ReadModels(http_services.redis, http_services.store.prefix))
    for g in (game_id, rematch):
        updater.update(g)
    listed = {g["game_id"]: g for g in api.call("GET", "/v1/games?limit=100").body["games"]}
    assert listed[rematch]["rematch_of"] == game_id and listed[rematch]["status"] == "open"
    assert listed[game_id]["rematch_of"] is None


def test_only_a_seat_of_the_finished_game_asks_and_only_once_it_is_over(api: FlaskApi) -> None:
    game_id, tokens = finished_game(api)
    other, other_tokens = finished_game(api, seed=b"other")
    assert ask(api, game_id, None).code == "unauthenticated"
    assert ask(api, game_id, other_tokens[0]).code == "unauthenticated"  # another game's seat
    assert ask(api, game_id, tokens[0][:-1] + ("A" if tokens[0][-1] != "A" else "B")).code == "unauthenticated"
    running = create_game(api, "schlitzohr", 2)
    running_tokens = seat_everyone(api, running, 2)
    refused = ask(api, running, running_tokens[0])
    assert refused.status == 409 and refused.code == "game_not_finished"
    assert api.call("GET", "/v1/games/nosuchgame1/rematch").code == "game_not_found"
    # None of the refusals made a rematch.
    for g in (game_id, running, other):
        assert api.call("GET", f"/v1/games/{g}/rematch").body["rematch"] is None


def test_an_invite_only_games_rematch_admits_its_seats_without_the_code(api: FlaskApi) -> None:
    reply = api.call("POST", "/v1/games", body={"game": "schlitzohr", "players": 2, "invite_only": True,
                                                 "options": {"turn_cap": 10}})
    game_id, invite = reply.body["game_id"], reply.body["invite"]
    tokens = seat_everyone(api, game_id, 2, invite)
    assert play_randomly(api, game_id, tokens, b"invited")["status"] == "finished"

    first = ask(api, game_id, tokens[0])
    assert first.status == 201 and first.body["view"]["invite_only"] is True
    code = first.body["invite"]  # for people who were not at the table, shown this once
    rematch = first.body["game_id"]
    # A stranger needs the new code (the old one opens nothing), a seat of the old game does not.
    stranger = api.call("POST", f"/v1/games/{rematch}/seats", body={"name": "eve", "invite": invite})
    assert stranger.status == 403 and stranger.code == "invite_required"
    second = ask(api, game_id, tokens[1])
    assert second.status == 201 and second.body["game_id"] == rematch and "invite" not in second.body
    assert second.body["view"]["status"] == "running"
    assert code not in str(api.call("GET", f"/v1/games/{rematch}").body)


def test_the_clock_comes_along_and_a_seat_taken_meanwhile_is_refused(api: FlaskApi) -> None:
    """(Bots at the same seats: tests/e2e/test_client.py, where bot workers play.)"""
    clock = {"per_decision_s": 60, "reserve_s": 30, "policy": "bot:random"}
    game_id = create_game(api, "schlitzohr", 3, options={"turn_cap": 10}, clock=clock)
    tokens = seat_everyone(api, game_id, 3)
    assert play_randomly(api, game_id, tokens, b"clock")["status"] == "finished"
    first = ask(api, game_id, tokens[0]).body
    assert {k: first["view"]["clock"][k] for k in clock} == clock
    # A stranger took seat 1 of the rematch (it is open to anyone): the old seat 1 is told.
    taken = api.call("POST", f"/v1/games/{first['game_id']}/seats", body={"name": "eve", "seat": 1})
    assert taken.status == 201
    late = ask(api, game_id, tokens[1])
    assert late.status == 422 and late.code == "seat_taken", late.body
    # Seat 2 still finds its own seat free, and the game starts.
    assert ask(api, game_id, tokens[2]).body["view"]["status"] == "running"


def test_two_seats_asking_at_once_make_one_rematch(api: FlaskApi, http_app: Any) -> None:
    game_id, tokens = finished_game(api, players=4, seed=b"race")
    barrier = threading.Barrier(4)
    answers: list[Any] = [None] * 4

    def asks(seat: int) -> None:
        client = FlaskApi(http_app.test_client())
        barrier.wait()
        answers[seat] = ask(client, game_id, tokens[seat])

    threads = [threading.Thread(target=asks, args=(seat,)) for seat in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert all(a is not None and a.status == 201 for a in answers), [a and (a.status, a.body.get("code"), a.body.get("detail")) for a in answers]
    assert len({a.body["game_id"] for a in answers}) == 1
    assert sorted(a.body["seat"] for a in answers) == [0, 1, 2, 3]
    assert answers[0].body["game_id"] == api.call("GET", f"/v1/games/{game_id}/rematch").body["rematch"]


def test_a_claim_whose_game_never_came_is_taken_over(api: FlaskApi, http_services: Any) -> None:
    """A creator that died between its claim and its game leaves a link to nothing: the
    next seat to ask waits a moment for it, then gives it up and creates the rematch."""
    game_id, tokens = finished_game(api)
    services = http_services
    services.redis.set(rematch_key(services.settings.key_prefix, game_id), "neverCreated1")
    assert api.call("GET", f"/v1/games/{game_id}/rematch").body["rematch"] is None  # no game there
    answer = ask(api, game_id, tokens[0])
    assert answer.status == 201 and answer.body["game_id"] != "neverCreated1", answer.body
    assert api.call("GET", f"/v1/games/{game_id}/rematch").body["rematch"] == answer.body["game_id"]


def test_a_process_killed_between_its_claim_and_the_game_is_survived(
    api: FlaskApi, http_services: Any
) -> None:
    """A real process asks for the rematch and dies by SIGKILL right after its claim,
    before the game is written (its ``create_game`` kills it): the claim it left points
    at nothing. The next seat's ask (through the app) waits for that game a moment, takes
    the claim over and creates the rematch; the dead process's seat then joins it."""
    game_id, tokens = finished_game(api, seed=b"killed")
    settings = http_services.settings
    script = textwrap.dedent(f"""
        import os, signal
        from service.app.application import NoNotifier
        from service.bootstrap import build
        from service.settings import Settings
        services = build(Settings(redis_url={settings.redis_url!r}, key_prefix={settings.key_prefix!r}),
                         notifier=NoNotifier())
        def killed(*args, **kwargs):
            os.kill(os.getpid(), signal.SIGKILL)
        services.app.create_game = killed
        services.app.rematch({game_id!r}, {tokens[0]!r})
    """)
    process = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, timeout=60)
    assert process.returncode == -signal.SIGKILL, process.stderr.decode()[-2000:]
    left = http_services.redis.get(rematch_key(settings.key_prefix, game_id))
    assert left is not None  # the claim the dead process left
    assert api.call("GET", f"/v1/games/{game_id}/rematch").body["rematch"] is None  # points at nothing

    second = ask(api, game_id, tokens[1])
    assert second.status == 201 and second.body["game_id"].encode() != left, second.body
    first = ask(api, game_id, tokens[0])
    assert first.status == 201 and first.body["game_id"] == second.body["game_id"]
    assert first.body["view"]["status"] == "running"


def test_asking_counts_against_the_creation_limit(
    redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str
) -> None:
    """An ask may create a game and its bots' work: charged as a creation, whoever asks
    (the caller cannot know it is not the first); past the limit 429, nothing written."""
    app = make_app(app_settings(redis_target, key_prefix, create_limit_per_minute=2), redis_client)
    api = FlaskApi(app.test_client())
    game_id, tokens = finished_game(api, seed=b"limited")  # 1 of 2
    assert ask(api, game_id, tokens[0]).status == 201  # 2 of 2
    refused = ask(api, game_id, tokens[1])
    assert refused.status == 429 and refused.code == "create_rate_limited", refused.body
    rematch = api.call("GET", f"/v1/games/{game_id}/rematch").body["rematch"]
    assert api.call("GET", f"/v1/games/{rematch}").body["seats"][1]["name"] is None  # nothing was written
