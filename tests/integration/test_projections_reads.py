"""Reading views and scores: never older than the caller's version, never more than
the viewer may see."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import redis
from support.histories import play_on, seed_for, write_game

from engine.registry import get_game
from events.model.canonical import canonical_json
from events.model.errors import GameNotFound
from events.model.redaction import ADMIN, AUDITOR, SPECTATOR
from events.projections import ProjectionReader, Updater
from events.projections.views import current_table
from events.redis_adapter.store import RedisEventStore

pytestmark = pytest.mark.store

PLAYERS = [("Ann", None), ("Bob", None), ("Cy", None)]


@pytest.fixture
def reader(redis_client: redis.Redis, store: RedisEventStore, key_prefix: str) -> ProjectionReader:
    return ProjectionReader(redis_client, store, key_prefix)


def test_read_view_falls_back_to_the_store_when_the_projection_is_behind(
    store: RedisEventStore, reader: ProjectionReader
) -> None:
    updater = Updater(store, reader.models)
    early = write_game(store, "g", "abluxxen", PLAYERS, seed=seed_for("g"), commands=4)
    updater.update("g")
    late = play_on(store, "g", PLAYERS, seed=seed_for("g"), commands=6).version
    assert late > early.version

    stale = reader.read_view("g", 1)  # no minimum: the projection as it is
    assert (stale.version, stale.projected) == (early.version, True)
    fresh = reader.read_view("g", 1, min_version=late)  # what the caller's command produced
    assert (fresh.version, fresh.projected) == (late, False)
    scores = reader.read_scores("g", min_version=late)
    assert (scores.version, scores.projected) == (late, False)

    updater.update("g")
    projected = reader.read_view("g", 1, min_version=late)
    assert projected == replace(fresh, projected=True)
    assert reader.read_scores("g", min_version=late).scores == scores.scores


def test_read_view_without_any_read_model_computes_from_the_whole_history(
    store: RedisEventStore, reader: ProjectionReader
) -> None:
    written = write_game(store, "g", "schlitzohr", PLAYERS, seed=seed_for("g"), commands=5)
    view = reader.read_view("g", SPECTATOR)
    assert (view.version, view.projected, view.seat, view.status) == (
        written.version,
        False,
        None,
        "running",
    )
    Updater(store, reader.models).update("g")
    assert reader.read_view("g", AUDITOR).view == view.view  # auditors get the spectator view
    assert reader.read_view("g", ADMIN).projected


def test_seat_views_hold_only_their_own_hand(
    store: RedisEventStore, reader: ProjectionReader
) -> None:
    write_game(store, "g", "abluxxen", PLAYERS, seed=seed_for("g"), commands=7)
    Updater(store, reader.models).update("g")
    table = current_table(reader.models, store, "g")
    game = get_game("abluxxen")
    hands = [reader.read_view("g", seat).view["hand"] for seat in range(3)]
    for seat in range(3):
        view = reader.read_view("g", seat).view
        assert view == json.loads(canonical_json(game.view(table.state, seat)))
        assert "hands" not in view and "pile" not in view
        assert view["hand"] == hands[seat]
    assert len({canonical_json(h) for h in hands}) == 3
    spectator = reader.read_view("g", SPECTATOR).view
    assert spectator["hand"] is None and "hands" not in spectator


def test_bad_reads_are_refused(store: RedisEventStore, reader: ProjectionReader) -> None:
    write_game(store, "g", "schlitzohr", PLAYERS[:2], seed=seed_for("g"), commands=1)
    with pytest.raises(ValueError):
        reader.read_view("g", 2)  # before projecting: checked on the fallback path
    Updater(store, reader.models).update("g")
    with pytest.raises(ValueError):
        reader.read_view("g", 2)  # after: checked on the projected path
    with pytest.raises(TypeError):
        reader.read_view("g", True)  # type: ignore[arg-type]
    with pytest.raises(GameNotFound):
        reader.read_view("nope", SPECTATOR)
    with pytest.raises(GameNotFound):
        reader.read_scores("nope")
