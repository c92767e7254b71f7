"""Open games on real Redis: the index, the per-client cap, the sweeper's expiry pass."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import redis
from support.redis import TestRedis

from service.app.application import NoNotifier
from service.app.errors import TooManyOpenGames
from service.bootstrap import Services, build
from service.settings import Settings
from workers.sweeper import expire_open_games


@pytest.fixture
def svc(redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str) -> Iterator[Services]:
    settings = Settings(
        redis_url=redis_target.url, key_prefix=key_prefix, open_game_ttl_s=600, max_open_games_per_client=2
    )
    yield build(settings, notifier=NoNotifier(), client=redis_client)


def test_the_sweeper_expires_only_open_games_past_their_ttl(svc: Services) -> None:
    app = svc.app
    waiting = app.create_game("schlitzohr", {}, [None, None], "ip:a")["game_id"]
    full = app.create_game("schlitzohr", {}, [None, None], "ip:a")["game_id"]
    app.join(full, "ada"), app.join(full, "bob")  # started: out of the index at once
    bots = app.create_game("schlitzohr", {}, ["random", "random"], "ip:a")["game_id"]  # never open
    now = time.time()
    assert expire_open_games(svc, now) == []  # not old enough
    assert expire_open_games(svc, now + 601) == [waiting]
    assert expire_open_games(svc, now + 1200) == []  # once
    assert app.queries.view(waiting, None)["status"] == "expired"
    assert {app.queries.view(g, None)["status"] for g in (full, bots)} == {"running"}
    assert svc.redis.zcard(f"{svc.settings.key_prefix}games:open") == 0


def test_a_game_that_started_is_never_expired_even_if_its_index_entry_stayed(svc: Services) -> None:
    app = svc.app
    game_id = app.create_game("schlitzohr", {}, [None, None], "ip:a")["game_id"]
    app.join(game_id, "ada"), app.join(game_id, "bob")
    index = f"{svc.settings.key_prefix}games:open"
    svc.redis.zadd(index, {game_id: time.time()})  # as if the removal had been lost
    assert expire_open_games(svc, time.time() + 601) == []
    assert app.queries.view(game_id, None)["status"] == "running"
    assert svc.redis.zscore(index, game_id) is None  # repaired


def test_the_cap_counts_open_games_per_client(svc: Services) -> None:
    app = svc.app
    first = app.create_game("abluxxen", {}, [None, None], "ip:a")["game_id"]
    app.create_game("abluxxen", {}, [None, None], "ip:a")
    with pytest.raises(TooManyOpenGames) as refused:
        app.create_game("abluxxen", {}, [None, None], "ip:a")
    assert 0 < refused.value.retry_after_s <= 600
    app.create_game("abluxxen", {}, [None, None], "ip:b")  # another client
    app.create_game("abluxxen", {}, [None, None], None)  # the operator
    app.join(first, "ada"), app.join(first, "bob")
    app.create_game("abluxxen", {}, [None, None], "ip:a")  # a place freed
    ttl = svc.redis.ttl(f"{svc.settings.key_prefix}opengames:{{ip:a}}")
    assert 600 < ttl <= 600 + 24 * 3600
