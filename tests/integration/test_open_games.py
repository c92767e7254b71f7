"""Open games on real Redis: the index, the per-client cap, the sweeper's expiry pass."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from support.redis import TestRedis

from service.app.application import NoNotifier
from service.app.errors import TooManyOpenGames
from service.app.open_games import RESERVATION_GRACE_S
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


def _paused_creations(svc: Services, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], threading.Event]:
    """Make the store's creations wait for the returned event; the list records each
    creation that reached the store (its game id)."""
    reached: list[str] = []
    go = threading.Event()
    create = svc.app.store.create

    def paused(ref: Any, *args: Any, **kwargs: Any) -> Any:
        reached.append(ref.id)
        go.wait(10)
        return create(ref, *args, **kwargs)

    monkeypatch.setattr(svc.app.store, "create", paused)
    return reached, go


def test_creations_racing_at_the_cap_pass_one_at_a_time(
    svc: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One place left (cap 2). The first creation has passed the cap and waits at the
    # store; the second comes now. Counting first and adding after, both passed (three
    # open games); the place is taken in one step, so the second is refused.
    svc.app.create_game("abluxxen", {}, [None, None], "ip:a")
    reached, go = _paused_creations(svc, monkeypatch)
    outcomes: list[str] = []

    def create() -> None:
        try:
            svc.app.create_game("abluxxen", {}, [None, None], "ip:a")
            outcomes.append("created")
        except TooManyOpenGames:
            outcomes.append("refused")

    first = threading.Thread(target=create)
    first.start()
    deadline = time.monotonic() + 10
    while not reached and time.monotonic() < deadline:
        time.sleep(0.01)
    second = threading.Thread(target=create)
    second.start()
    while len(reached) < 2 and not outcomes and time.monotonic() < deadline:
        time.sleep(0.01)
    go.set()
    first.join(10), second.join(10)
    assert sorted(outcomes) == ["created", "refused"]
    assert len(svc.app.open_games.open_since("ip:a")) == 2  # type: ignore[union-attr]


def test_a_creation_that_failed_gives_its_place_back_and_a_lost_one_lapses(
    svc: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = svc.app
    open_games = app.open_games
    assert open_games is not None
    app.create_game("abluxxen", {}, [None, None], "ip:a")
    create = app.store.create

    def failing(*args: Any, **kwargs: Any) -> Any:
        raise redis.ConnectionError("the store went away")

    monkeypatch.setattr(app.store, "create", failing)
    with pytest.raises(redis.ConnectionError):
        app.create_game("abluxxen", {}, [None, None], "ip:a")
    monkeypatch.setattr(app.store, "create", create)
    app.create_game("abluxxen", {}, [None, None], "ip:a")  # the place was given back
    # A creation whose process died holds its place until the reservation lapses.
    app.join(app.create_game("abluxxen", {}, [None, None], "ip:b")["game_id"], "x")
    now = time.time()
    assert open_games.admit("ip:c", now, "lost") is None  # reserved, never created
    assert open_games.admit("ip:c", now, "next") is None
    assert open_games.admit("ip:c", now, "third") is not None  # two places held
    assert open_games.admit("ip:c", now + RESERVATION_GRACE_S + 1, "later") is None
