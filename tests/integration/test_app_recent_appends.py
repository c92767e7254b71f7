"""Two server processes sharing a board of recent appends (``events.recent``) on real
Redis: the one that did not take the last command catches up without reading Redis,
and ends exactly where a full replay does."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from engine.registry import game_names, get_game
from engine.rng import SeededRandom
from events.recent import RecentAppends
from events.redis_store import RedisEventStore
from service.app.application import Application
from service.app.errors import StaleVersion


class CountingStore(RedisEventStore):
    """A real store that counts its range reads (each one a round trip to Redis)."""

    reads = 0

    def read_range(self, *args: Any, **kwargs: Any) -> Any:
        self.reads += 1
        return super().read_range(*args, **kwargs)


def processes(client: redis.Redis, prefix: str, board: RecentAppends | None) -> list[Application]:
    """Two applications with stores of their own, like two gunicorn workers."""
    return [Application(CountingStore(client, prefix=prefix, recent=board)) for _ in range(2)]


def seat_people(app: Application, game: str) -> tuple[str, list[str]]:
    players = get_game(game).min_players
    game_id = app.create_game(game, {}, [None] * players)["game_id"]
    return game_id, [app.join(game_id, f"p{i}").token for i in range(players)]


def play(workers: list[Application], observer: Application, game_id: str, tokens: list[str], moves: int) -> None:
    """Random legal commands, the n-th one sent to ``workers[n % len(workers)]``."""
    pick = SeededRandom(game_id.encode(), "recent")
    for step in range(moves):
        view = observer.queries.view(game_id, None)
        if view["status"] == "finished":
            return
        seat = int(min(view["to_act"], key=int))
        legal = observer.queries.legal(game_id, seat)["commands"]
        command = legal[pick.randbelow(len(legal), f"m{step}")]
        workers[step % len(workers)].submit(game_id, tokens[seat], command, view["version"])


@pytest.mark.parametrize("game", game_names())
def test_a_worker_catches_up_from_the_board_without_reading_redis(
    redis_client: redis.Redis, key_prefix: str, game: str
) -> None:
    observer = Application(RedisEventStore(redis_client, prefix=key_prefix))
    shared = processes(redis_client, key_prefix, RecentAppends.create(slots=64))
    apart = processes(redis_client, key_prefix, None)
    grown, games = {}, {}
    for workers in (shared, apart):
        game_id, tokens = seat_people(observer, game)
        play(workers, observer, game_id, tokens, 2)  # each worker loads the game once
        before = [w.store.reads for w in workers]
        play(workers, observer, game_id, tokens, 5000)  # to the end: the seed reveal too
        grown[id(workers)] = [w.store.reads - b for w, b in zip(workers, before)]
        games[id(workers)] = game_id
    # Then the board brings each worker up to date; without it, every command reads Redis.
    assert grown[id(shared)] == [0, 0]
    assert min(grown[id(apart)]) > 20
    assert observer.queries.view(games[id(shared)], None)["status"] == "finished"
    game_id = games[id(shared)]
    replayed = Application(RedisEventStore(redis_client, prefix=key_prefix)).tables.load(game_id)
    for worker in shared:
        cached = worker.tables.cached(game_id)
        assert cached is not None
        again = Application(RedisEventStore(redis_client, prefix=key_prefix)).queries.table_at(
            game_id, cached.version, replayed.version
        )
        assert cached == again
    # The worker that ended the game holds the seed reveal too, read from the board.
    assert max(w.tables.cached(game_id).version for w in shared) == replayed.version  # type: ignore[union-attr]
    assert observer.store.verify(game_id) == replayed.version


def test_a_stale_client_hears_the_true_head_even_when_the_board_holds_its_version(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    first, second = processes(redis_client, key_prefix, RecentAppends.create(slots=64))
    observer = Application(RedisEventStore(redis_client, prefix=key_prefix))
    game_id, tokens = seat_people(observer, "schlitzohr")
    second.queries.view(game_id, None)  # the second worker caches the start
    play([first], observer, game_id, tokens, 1)
    stale = observer.queries.view(game_id, None)
    play([first], observer, game_id, tokens, 1)
    head = observer.store.head(game_id).version
    assert head > stale["version"]
    seat = int(min(stale["to_act"], key=int))
    with pytest.raises(StaleVersion) as err:
        second.submit(game_id, tokens[seat], {"kind": "roll"}, stale["version"])
    assert err.value.current_version == head
    assert observer.store.head(game_id).version == head  # nothing written


class GunicornMaster:
    """What ``on_starting`` reads of gunicorn's arbiter: its worker count."""

    def __init__(self, workers: int) -> None:
        self.cfg = type("Cfg", (), {"workers": workers})()


@pytest.mark.parametrize(("workers", "slots", "shared"), [(2, "64", True), (1, "64", False), (4, "0", False)])
def test_the_gunicorn_master_shares_a_board_that_build_hands_to_the_store(
    redis_client: redis.Redis,
    key_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
    workers: int,
    slots: str,
    shared: bool,
) -> None:
    from service import bootstrap
    from service.app.application import NoNotifier
    from service.runner import gunicorn_config
    from service.runner import shared as shared_state
    from service.settings import Settings

    monkeypatch.setattr(shared_state, "recent_appends", None)
    monkeypatch.setenv("TABLETOP_RECENT_APPENDS", slots)
    gunicorn_config.on_starting(GunicornMaster(workers))
    settings = Settings.from_env()
    services = bootstrap.build(Settings(key_prefix=key_prefix, recent_appends=settings.recent_appends), NoNotifier(), redis_client)
    game_id, tokens = seat_people(services.app, "schlitzohr")
    version = services.app.queries.view(game_id, None)["version"]
    services.app.submit(game_id, tokens[0], {"kind": "roll"}, version)
    held = services.store.read_recent(game_id, version)
    assert (held is not None and held[0].version == version + 1) == shared
