"""The application layer on real Redis: the one command path, lobby, idempotency, races."""

from __future__ import annotations

import json
from typing import Any

import pytest
import redis

from engine.errors import RuleViolation
from engine.registry import game_names, get_game
from engine.rng import SeededRandom
from events.redis_adapter.store import RedisEventStore
from service.app.application import Application
from service.app.errors import IdempotencyMismatch, StaleVersion, Unauthenticated, VersionRequired


@pytest.fixture
def app(redis_client: redis.Redis, key_prefix: str) -> Application:
    return Application(RedisEventStore(redis_client, prefix=key_prefix), snapshot_every=25)


def seat_everyone(app: Application, game: str, players: int) -> tuple[str, list[str]]:
    created = app.create_game(game, {}, [None] * players)
    game_id = created["game_id"]
    tokens = [app.join(game_id, f"player{i}").token for i in range(players)]
    return game_id, tokens


def play_randomly(app: Application, game_id: str, tokens: list[str], seed: bytes) -> dict[str, Any]:
    pick = SeededRandom(seed, "test-pick")
    for step in range(20_000):
        view = app.queries.view(game_id, None)
        if view["status"] == "finished":
            return view
        seat = int(min(view["to_act"], key=int))
        legal = app.queries.legal(game_id, seat)["commands"]
        command = legal[pick.randbelow(len(legal), f"p{step}")]
        outcome = app.submit(game_id, tokens[seat], command, view["version"])
        assert outcome["version"] > view["version"]
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", game_names())
def test_a_full_game_through_the_application_matches_the_engine(app: Application, game: str) -> None:
    players = get_game(game).min_players
    game_id, tokens = seat_everyone(app, game, players)
    final = play_randomly(app, game_id, tokens, game.encode())
    assert final["result"]["winners"]
    assert final["seed"] is not None  # revealed after the end
    history = app.queries.history(game_id, 0, 0, 1000)
    types = [e["type"] for e in history["events"]]
    assert types[0] == "GameCreated" and types[-1] == "SeedRevealed" and "GameEnded" in types
    assert [e["version"] for e in history["events"]] == list(range(1, len(types) + 1))
    app.store.verify(game_id)


def test_lobby_starts_the_game_when_full_and_checks_tokens(app: Application) -> None:
    created = app.create_game("abluxxen", {"edition": "classic"}, [None, "random", None])
    game_id = created["game_id"]
    assert created["status"] == "open" and created["seats"][1]["bot"] == "random"
    first = app.join(game_id, "ada")
    # Dealt, but shown to nobody while her seat may still change hands.
    assert first.seat == 0 and first.view["state"]["hand"] is None
    with pytest.raises(RuleViolation) as err:
        app.join(game_id, "ada")
    assert err.value.code == "name_taken"
    with pytest.raises(RuleViolation) as err:
        app.submit(game_id, first.token, {"kind": "pass"}, app.queries.view(game_id, None)["version"])
    assert err.value.code == "game_not_started"
    second = app.join(game_id, "bob")
    assert second.seat == 2 and app.queries.view(game_id, None)["status"] == "running"
    assert second.view["state"]["hand"] and app.queries.view(game_id, 0)["state"]["hand"]  # play began
    with pytest.raises(Unauthenticated):
        app.submit(game_id, first.token[:-2] + "xx", {"kind": "pass"}, 1)
    with pytest.raises(Unauthenticated):
        app.submit(game_id, None, {"kind": "pass"}, 1)
    with pytest.raises(RuleViolation) as err:
        app.leave(game_id, first.token)
    assert err.value.code == "game_already_started"


def test_leaving_frees_the_seat_and_kills_the_token(app: Application) -> None:
    game_id = app.create_game("schlitzohr", {}, [None, None])["game_id"]
    ada = app.join(game_id, "ada")
    app.leave(game_id, ada.token)
    bob = app.join(game_id, "bob")
    assert bob.seat == ada.seat
    with pytest.raises(Unauthenticated):
        app.seat_of(game_id, ada.token)


def test_stale_versions_conflict_and_write_nothing(app: Application) -> None:
    game_id, tokens = seat_everyone(app, "schlitzohr", 2)
    version = app.queries.view(game_id, None)["version"]
    app.submit(game_id, tokens[0], {"kind": "roll"}, version)
    with pytest.raises(StaleVersion) as err:
        app.submit(game_id, tokens[0], {"kind": "roll"}, version)
    assert err.value.current_version == version + 1
    assert app.store.head(game_id).version == version + 1
    with pytest.raises(VersionRequired):
        app.submit(game_id, tokens[0], {"kind": "roll"}, None)


def test_an_idempotent_retry_returns_the_first_outcome(app: Application) -> None:
    game_id, tokens = seat_everyone(app, "schlitzohr", 2)
    version = app.queries.view(game_id, None)["version"]
    first = app.submit(game_id, tokens[0], {"kind": "roll"}, version, "key-1")
    head = app.store.head(game_id).version
    again = app.submit(game_id, tokens[0], {"kind": "roll"}, version, "key-1")
    assert json.dumps(again, sort_keys=True) == json.dumps(first, sort_keys=True)
    assert app.store.head(game_id).version == head
    other = Application(app.store)  # another process: a cold cache
    assert other.submit(game_id, tokens[0], {"kind": "roll"}, version, "key-1") == first
    with pytest.raises(IdempotencyMismatch):
        app.submit(game_id, tokens[0], {"kind": "joker"}, version, "key-1")


def test_two_processes_racing_on_one_version_write_once(app: Application) -> None:
    game_id, tokens = seat_everyone(app, "schlitzohr", 2)
    version = app.queries.view(game_id, None)["version"]
    other = Application(app.store)
    other.queries.view(game_id, None)  # both caches at the same version
    app.submit(game_id, tokens[0], {"kind": "roll"}, version)
    with pytest.raises(StaleVersion):
        other.submit(game_id, tokens[0], {"kind": "joker"}, version)
    assert app.store.head(game_id).version == version + 1


def test_hidden_facts_stay_hidden_from_other_seats(app: Application) -> None:
    game_id, tokens = seat_everyone(app, "abluxxen", 3)
    mine = app.queries.view(game_id, 0)["state"]
    theirs = app.queries.view(game_id, 1)["state"]
    spectator = app.queries.view(game_id, None)["state"]
    assert mine["hand"] != theirs["hand"] or mine["hand"] is None
    assert spectator.get("hand") in (None, [])
    events = app.queries.history(game_id, 1, 0, 1000)["events"]
    dealt = [e for e in events if e["type"] == "HandDealt"]
    assert [e["private"] is not None for e in dealt] == [False, True, False]


def test_a_process_with_a_stale_cache_accepts_a_token_issued_elsewhere(app: Application) -> None:
    created = app.create_game("schlitzohr", {}, [None, "random"])
    other = Application(app.store)  # another worker process
    other.queries.view(created["game_id"], None)  # caches the table before anyone joined
    ada = app.join(created["game_id"], "ada")
    version = app.queries.view(created["game_id"], None)["version"]
    outcome = other.submit(created["game_id"], ada.token, {"kind": "roll"}, version)
    assert outcome["version"] > version


def test_an_illegal_command_on_a_stale_cached_version_is_a_conflict(app: Application) -> None:
    game_id, tokens = seat_everyone(app, "schlitzohr", 2)
    version = app.queries.view(game_id, None)["version"]
    other = Application(app.store)
    other.queries.view(game_id, None)  # another process caches this version
    app.submit(game_id, tokens[0], {"kind": "roll"}, version)
    with pytest.raises(StaleVersion) as err:
        other.submit(game_id, tokens[0], {"kind": "move", "ear": 2, "to": "e1"}, version)
    assert err.value.current_version == version + 1
