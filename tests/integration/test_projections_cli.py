"""``tabletop projections rebuild [--game ID]``: from the game streams alone, equal to
the live read models."""

from __future__ import annotations

import pytest
import redis
from support.histories import Player, seed_for, write_game
from support.readmodels import dump_read_models
from support.redis import TestRedis

from events.projections import ReadModels, Updater
from events.projections.keys import ReadModelKeys
from events.redis_adapter.store import RedisEventStore
from service.cli import main

pytestmark = pytest.mark.store


@pytest.fixture
def live(redis_client: redis.Redis, store: RedisEventStore, key_prefix: str) -> dict[str, object]:
    """Two games projected live, one step at a time; the dump of their read models."""
    updater = Updater(store, ReadModels(redis_client, key_prefix))
    specs: list[tuple[str, str, list[Player | None], int | None]] = [
        ("c1", "abluxxen", [("Ann", None), ("Bob", "random")], None),
        ("c2", "schlitzohr", [("Bob", None), ("Ann", None)], 12),
    ]
    for game_id, name, players, commands in specs:
        write_game(
            store,
            game_id,
            name,
            players,
            seed=seed_for(game_id),
            commands=commands,
            on_append=lambda g, v: updater.update(g),
        )
    return dump_read_models(redis_client, key_prefix)


def rebuild(
    capsys: pytest.CaptureFixture[str], target: TestRedis, prefix: str, *args: str
) -> tuple[int, str, str]:
    code = main(["projections", "rebuild", "--redis-url", target.url, "--prefix", prefix, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_rebuild_replaces_every_read_model_with_an_equal_one(
    capsys: pytest.CaptureFixture[str],
    redis_target: TestRedis,
    redis_client: redis.Redis,
    key_prefix: str,
    live: dict[str, object],
) -> None:
    view_key = ReadModelKeys(key_prefix).view("c2")
    redis_client.hset(view_key, "spectator", '"damaged"')
    redis_client.hset(ReadModelKeys(key_prefix).player_totals("Ann"), "games", 99)
    code, out, _ = rebuild(capsys, redis_target, key_prefix)
    assert code == 0
    assert out.startswith("rebuilt 2 game(s), ") and " events in " in out
    assert dump_read_models(redis_client, key_prefix) == live


def test_rebuild_of_one_game(
    capsys: pytest.CaptureFixture[str],
    redis_target: TestRedis,
    redis_client: redis.Redis,
    key_prefix: str,
    live: dict[str, object],
) -> None:
    keys = ReadModelKeys(key_prefix)
    redis_client.delete(keys.view("c1"), keys.summary("c1"))
    code, out, _ = rebuild(capsys, redis_target, key_prefix, "--game", "c1")
    assert code == 0 and out.startswith("rebuilt 1 game(s), ")
    assert dump_read_models(redis_client, key_prefix) == live

    code, _, err = rebuild(capsys, redis_target, key_prefix, "--game", "missing")
    assert code == 1 and "missing" in err
