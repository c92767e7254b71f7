"""Each event is applied at most once per read model, however often it is delivered,
and a crash between the per-game write and the cross-slot writes loses nothing."""

from __future__ import annotations

from dataclasses import replace

import pytest
import redis
from support.histories import Written, seed_for, write_game
from support.readmodels import dump_read_models, rebuilt_read_models

from engine.table import RUNNING
from events.model.redaction import ADMIN
from events.projections import ProjectionReader, ReadModels, Updater
from events.projections.model import fold, record_of
from events.projections.reconcile import known_games, lagging_games
from events.redis_adapter import feed
from events.redis_adapter.store import RedisEventStore
from workers.projector import Projector

pytestmark = pytest.mark.store

SHARDS = 2


@pytest.fixture
def finished(store: RedisEventStore) -> Written:
    """A finished game written without any projector or notification."""
    players = [("Ann", None), ("Bob", None), ("Cy", "random")]
    return write_game(store, "done", "schlitzohr", players, seed=seed_for("done"))


def test_a_notification_delivered_twice_is_applied_once(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str, finished: Written
) -> None:
    projector = Projector(redis_client, key_prefix, shards=SHARDS, consumer="c")
    reader = ProjectionReader(redis_client, store, key_prefix)
    for _ in range(2):  # the same notification twice, in two separate deliveries
        feed.publish(redis_client, key_prefix, finished.game_id, finished.version, shards=SHARDS)
        assert projector.catch_up_once() == 1
    assert projector.applied == finished.version
    totals = [reader.player_totals(name) for name in ("Ann", "Bob", "Cy")]
    assert [t.games for t in totals] == [1, 1, 1]
    assert sum(t.wins for t in totals) >= 1
    assert reader.read_scores(finished.game_id).scores == [t.points for t in totals]


def test_an_update_from_a_stale_checkpoint_writes_nothing(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str, finished: Written
) -> None:
    models = ReadModels(redis_client, key_prefix)
    Updater(store, models).update(finished.game_id)
    before = dump_read_models(redis_client, key_prefix)
    partial = fold(finished.game_id, None, store.read_range(finished.game_id, ADMIN, 1, 10))
    assert partial is not None
    assert not models.apply(finished.game_id, 0, record_of(partial))  # checkpoint is not 0
    assert not models.apply(finished.game_id, 9, record_of(partial))
    assert dump_read_models(redis_client, key_prefix) == before


def test_a_finished_game_counts_once_per_player(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str, finished: Written
) -> None:
    models = ReadModels(redis_client, key_prefix)
    updater = Updater(store, models)
    updater.update(finished.game_id)
    table = models.load(finished.game_id).table
    assert table is not None
    assert models.count_finished(finished.game_id, table) == 0  # already counted
    updater.rebuild(finished.game_id)
    updater.rebuild(finished.game_id)
    reader = ProjectionReader(redis_client, store, key_prefix)
    assert reader.player_totals("Ann").games == 1
    assert reader.player_totals("Nobody").to_json() == {
        "name": "Nobody",
        "games": 0,
        "wins": 0,
        "points": 0,
    }


def test_cross_slot_models_are_completed_after_a_crash_between_slots(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str, finished: Written
) -> None:
    models = ReadModels(redis_client, key_prefix)
    table = fold(finished.game_id, None, store.read_all(finished.game_id, ADMIN))
    assert table is not None
    # The per-game write happened; the process died before totals and lobby.
    assert models.apply(finished.game_id, 0, record_of(table))
    reader = ProjectionReader(redis_client, store, key_prefix)
    assert reader.player_totals("Ann").games == 0
    assert reader.list_games().games == []
    assert lagging_games(redis_client, models.keys, known_games(redis_client, models.keys)) == [
        finished.game_id
    ]
    outcome = Updater(store, models).update(finished.game_id)
    assert outcome.applied == 0  # nothing new for the per-game model ...
    assert reader.player_totals("Ann").games == 1  # ... but the rest was completed
    assert [g.game_id for g in reader.list_games(status="finished").games] == ["done"]
    live = dump_read_models(redis_client, key_prefix)
    assert live == rebuilt_read_models(redis_client, key_prefix)


def test_the_lobby_never_moves_a_game_back(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str, finished: Written
) -> None:
    models = ReadModels(redis_client, key_prefix)
    Updater(store, models).update(finished.game_id)
    table = models.load(finished.game_id).table
    assert table is not None
    stale = replace(table, status=RUNNING, version=table.version - 5)
    assert not models.sync_lobby(finished.game_id, stale)  # a slow projector's older news
    reader = ProjectionReader(redis_client, store, key_prefix)
    assert [g.game_id for g in reader.list_games(status="finished").games] == ["done"]
    assert reader.list_games(status="running").games == []
