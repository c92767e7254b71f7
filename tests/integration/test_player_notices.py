"""Player-stream notices on a real Redis: written by the projector's updater once per
state of a registered player's seat, never twice (redelivery, rebuild), with only
public facts, and relayed by the SSE generator gap-free and resumable."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
import redis
from support.sse import events

from engine.registry import get_game
from events.accounts.keys import AccountKeys
from events.accounts.names import name_key
from events.projections import ReadModels, Updater
from events.redis_adapter.store import RedisEventStore
from service.accounts.store import AccountStore
from service.app.application import Application
from service.http.player_stream import notice_stream

pytestmark = pytest.mark.store


def _notices(client: redis.Redis, prefix: str, name: str) -> list[dict[str, object]]:
    keys = AccountKeys.of(prefix, name_key(name))
    return [json.loads(fields[b"n"]) for _, fields in client.xrange(keys.notices)]


def _play(app: Application, game_id: str, token: str, updater: Updater, steps: int) -> None:
    """``steps`` commands of seat 0 (the bot is not running: the test moves both seats
    through the application, updating the read models after every command)."""
    game = get_game("schlitzohr")
    for _ in range(steps):
        table = app.tables.load(game_id)
        if table.status != "running":
            return
        seat = min(game.to_act(table.state))
        command = game.legal_commands(table.state, seat)[0]
        if seat == 0:
            app.submit(game_id, token, command, table.version)
        else:
            app.submit_as_bot(game_id, seat, command, table.version, f"k{table.version}")
        updater.update(game_id)


def test_notices_once_per_state_never_twice(redis_client: redis.Redis, store: RedisEventStore, key_prefix: str) -> None:
    accounts = AccountStore(redis_client, key_prefix)
    app = Application(store, accounts=accounts)
    account = accounts.register("Ada").account
    created = app.create_game("schlitzohr", {}, [None, "random"])
    joined = app.join(created["game_id"], None, None, account)
    updater = Updater(store, ReadModels(redis_client, key_prefix))
    updater.update(created["game_id"])
    _play(app, created["game_id"], joined.token, updater, 40)
    written = _notices(redis_client, key_prefix, "Ada")
    assert written[0]["kind"] == "started" and written[0]["seat"] == 0
    versions = [n["version"] for n in written]
    assert versions == sorted(set(versions))  # each version at most once, in order
    # Redelivery and a full rebuild write nothing new.
    updater.update(created["game_id"])
    updater.rebuild(created["game_id"])
    assert _notices(redis_client, key_prefix, "Ada") == written
    # Only public facts: each notice is a function of the spectator's knowledge.
    for notice in written:
        assert set(notice) == {"kind", "game_id", "game", "seat", "version", "status", "to_move", "kinds", "deadline", "result"}
        assert notice["to_move"] == bool(notice["kinds"])


def test_a_guest_game_costs_no_notice(redis_client: redis.Redis, store: RedisEventStore, key_prefix: str) -> None:
    app = Application(store, accounts=AccountStore(redis_client, key_prefix))
    created = app.create_game("schlitzohr", {}, [None, "random"])
    app.join(created["game_id"], "guest", None)
    Updater(store, ReadModels(redis_client, key_prefix)).update(created["game_id"])
    assert not list(redis_client.scan_iter(match=f"{key_prefix}account:*"))


def test_the_stream_resumes_after_any_id_and_reports_a_trimmed_gap(redis_client: redis.Redis, key_prefix: str) -> None:
    key = AccountKeys.of(key_prefix, name_key("Bo")).notices
    for n in range(1, 8):
        redis_client.xadd(key, {"n": json.dumps({"kind": "waiting", "n": n})}, id=f"{n}-0")
    for after in range(8):
        got = list(events(notice_stream(redis_client, key, after, 0.3, 0.1)))
        assert [e.id for e in got] == list(range(after + 1, 8))
    redis_client.xtrim(key, minid="5-0", approximate=False)
    got = list(events(notice_stream(redis_client, key, 2, 0.3, 0.1)))
    assert got[0].type == "reset" and got[0].data == {"oldest": 5} and got[0].id == 4
    assert [e.id for e in got[1:]] == [5, 6, 7]


def test_leaving_before_the_start_is_noticed_and_unlists_the_game(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str
) -> None:
    accounts = AccountStore(redis_client, key_prefix)
    app = Application(store, accounts=accounts)
    account = accounts.register("Cleo").account
    game_id = app.create_game("schlitzohr", {}, [None, None])["game_id"]
    joined = app.join(game_id, None, None, account)
    updater = Updater(store, ReadModels(redis_client, key_prefix))
    updater.update(game_id)
    assert accounts.games_page(account, None, 10)[0] == [game_id]
    app.leave(game_id, joined.token)
    updater.update(game_id)
    assert [n["kind"] for n in _notices(redis_client, key_prefix, "Cleo")] == ["seated", "left"]
    assert accounts.games_page(account, None, 10)[0] == []
    # Back again: seated and listed once more.
    app.join(game_id, None, None, account)
    updater.update(game_id)
    assert [n["kind"] for n in _notices(redis_client, key_prefix, "Cleo")] == ["seated", "left", "seated"]
    assert accounts.games_page(account, None, 10)[0] == [game_id]


def test_a_game_that_expires_idle_tells_its_players_it_is_over(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str
) -> None:
    """A running game nobody plays on ends (``GameExpired``, reason idle): a registered
    player hears ``expired`` -- not to move any more, no deadline, no result."""
    accounts = AccountStore(redis_client, key_prefix)
    app = Application(store, accounts=accounts)
    account = accounts.register("Idle").account
    created = app.create_game("schlitzohr", {}, [None, "random"])
    app.join(created["game_id"], None, None, account)
    updater = Updater(store, ReadModels(redis_client, key_prefix))
    updater.update(created["game_id"])
    assert _notices(redis_client, key_prefix, "Idle")[-1]["kind"] == "started"
    later = datetime.now(UTC) + timedelta(seconds=3601)
    assert app.expire_idle(created["game_id"], 3600, later).expired
    updater.update(created["game_id"])
    last = _notices(redis_client, key_prefix, "Idle")[-1]
    assert (last["kind"], last["status"], last["to_move"], last["deadline"], last["result"]) == (
        "expired", "expired", False, None, None
    )


def test_a_rematch_offers_each_registered_player_its_seat_once_until_taken(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str
) -> None:
    """Ada and Bea (registered) play; Ada asks for the rematch. Bea's player stream is
    offered her seat in it (kind ``rematch``) -- once, however often the projector sees
    the rematch before she takes it -- and then says ``seated`` when she does. The
    rematch joins her list of games only then."""
    from service.app.rematches import Rematches

    accounts = AccountStore(redis_client, key_prefix)
    app = Application(store, accounts=accounts, rematches=Rematches(redis_client, key_prefix))
    ada, bea = accounts.register("Ada2").account, accounts.register("Bea2").account
    game_id = app.create_game("schlitzohr", {"turn_cap": 10}, [None, None])["game_id"]
    tokens = [app.join(game_id, None, None, ada).token, app.join(game_id, None, None, bea).token]
    updater = Updater(store, ReadModels(redis_client, key_prefix))
    game = get_game("schlitzohr")
    while (table := app.tables.load(game_id)).status == "running":
        seat = min(game.to_act(table.state))
        app.submit(game_id, tokens[seat], game.legal_commands(table.state, seat)[0], table.version)
    updater.update(game_id)

    rematch = app.rematch(game_id, tokens[0]).joined.game_id
    for _ in range(2):  # a redelivery offers nothing twice
        updater.update(rematch)
    offers = [n for n in _notices(redis_client, key_prefix, "Bea2") if n["kind"] == "rematch"]
    assert len(offers) == 1 and offers[0]["game_id"] == rematch and offers[0]["rematch_of"] == game_id
    assert offers[0]["seat"] == 1 and offers[0]["status"] == "open" and offers[0]["to_move"] is False
    assert rematch not in accounts.games_page(bea, None, 10)[0]
    assert not [n for n in _notices(redis_client, key_prefix, "Ada2") if n["kind"] == "rematch"]  # seated there

    app.rematch(game_id, tokens[1])
    updater.update(rematch)
    last = _notices(redis_client, key_prefix, "Bea2")[-1]
    assert last["game_id"] == rematch and last["kind"] == "started"
    assert rematch in accounts.games_page(bea, None, 10)[0]
