"""The lobby index: filters by status and type, cursor pagination, summaries."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.clock import EPOCH
from support.histories import Player, seed_for, write_game

from engine.registry import get_game
from engine.table import FINISHED, OPEN, RUNNING, Table, evolve_table
from events.model import records
from events.model.clock import TIME_FORMAT
from events.projections import ProjectionReader, ReadModels, Updater
from events.projections.model import record_of
from events.redis_adapter.store import RedisEventStore

pytestmark = pytest.mark.store


def table_of(game_type: str, created_ms: int, status: str) -> Table:
    """A set-up table of ``game_type`` created at EPOCH + ``created_ms``, with ``status``."""
    game = get_game(game_type)
    created = (EPOCH + timedelta(milliseconds=created_ms)).strftime(TIME_FORMAT)
    table = None
    events = records.setup_events(game, game.validate_options(None), 2, seed_for(game_type))
    for version, event in enumerate(events, 1):
        table = evolve_table(game, table, event, version, created)
    assert table is not None
    return replace(table, status=status)


def put(models: ReadModels, game_id: str, table: Table) -> None:
    """Project ``table`` as ``game_id``, the way the updater does (game, then lobby)."""
    assert models.apply(game_id, 0, record_of(table))
    assert models.sync_lobby(game_id, table)


def test_filters_by_status_and_type(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str
) -> None:
    updater = Updater(store, ReadModels(redis_client, key_prefix))
    specs: list[tuple[str, str, list[Player | None], int | None]] = [
        ("open-s", "schlitzohr", [("Ann", None), None], None),
        ("run-a", "abluxxen", [("Ann", None), ("Bob", None)], 3),
        ("done-s", "schlitzohr", [("Bob", None), ("Bot", "random")], None),
        ("open-a", "abluxxen", [None, ("Cy", "random")], None),
    ]
    for game_id, name, players, commands in specs:
        write_game(store, game_id, name, players, seed=seed_for(game_id), commands=commands)
        updater.update(game_id)
    reader = ProjectionReader(redis_client, store, key_prefix)

    def ids(status: str | None = None, game_type: str | None = None) -> list[str]:
        return [g.game_id for g in reader.list_games(status=status, game_type=game_type).games]

    assert ids() == ["open-a", "done-s", "run-a", "open-s"]  # newest first
    assert ids(status=OPEN) == ["open-a", "open-s"]
    assert ids(status=RUNNING) == ["run-a"]
    assert ids(status=FINISHED) == ["done-s"]
    assert ids(game_type="schlitzohr") == ["done-s", "open-s"]
    assert ids(status=OPEN, game_type="abluxxen") == ["open-a"]
    summary = reader.summary("open-a")
    assert summary is not None and summary.to_json() == {
        "game_id": "open-a",
        "game": "abluxxen",
        "status": "open",
        "created": summary.created,
        "seats": [None, {"name": "Cy", "bot": "random", "guest": False}],
        "options": get_game("abluxxen").validate_options(None),
        "version": summary.version,
        "invite_only": False,
        "rematch_of": None,
    }
    assert reader.summary("nope") is None


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    games=st.lists(
        st.tuples(st.integers(0, 6), st.sampled_from([OPEN, RUNNING, FINISHED])), max_size=14
    ),
    limit=st.integers(1, 5),
    status=st.sampled_from([None, OPEN, FINISHED]),
)
def test_pages_list_every_game_once_newest_first(
    redis_client: redis.Redis,
    store: RedisEventStore,
    key_prefix: str,
    games: list[tuple[int, str]],
    limit: int,
    status: str | None,
) -> None:
    models = ReadModels(redis_client, key_prefix)
    models.delete_all()
    tables = {f"g{i:02d}": table_of("abluxxen", ms, s) for i, (ms, s) in enumerate(games)}
    for game_id, table in tables.items():
        put(models, game_id, table)  # created times collide often: ties on the score
    expected = sorted(
        (gid for gid, t in tables.items() if status in (None, t.status)),
        key=lambda gid: (tables[gid].created, gid),
        reverse=True,
    )
    reader = ProjectionReader(redis_client, store, key_prefix)
    seen: list[str] = []
    cursor = None
    for _ in range(len(games) + 2):  # a broken cursor must fail, not loop forever
        page = reader.list_games(status=status, cursor=cursor, limit=limit)
        assert len(page.games) <= limit
        seen += [g.game_id for g in page.games]
        if page.next_cursor is None:
            break
        assert len(page.games) == limit
        cursor = page.next_cursor
    assert seen == expected


@pytest.mark.parametrize(
    "filters",
    [
        {"status": "paused"},
        {"game_type": "chess"},
        {"cursor": "yesterday"},
        {"cursor": "12:bad id"},
        {"limit": 0},
    ],
)
def test_bad_filters_are_refused(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str, filters: dict[str, object]
) -> None:
    with pytest.raises(ValueError):
        ProjectionReader(redis_client, store, key_prefix).list_games(**filters)  # type: ignore[arg-type]
