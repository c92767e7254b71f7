"""Unfinished games on real Redis: the per-client cap, the running index, idle expiry.

The attack these bound: one address creates games, takes every seat and never plays.
Before, each stayed in Redis for ever (about 21 KB for 5-player Abluxxen, 30 a minute
through the creation limit), until a full Redis refused every client's writes.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
import redis
from support.redis import TestRedis

from engine.errors import RuleViolation
from events.model.redaction import ADMIN
from service.app.application import NoNotifier
from service.app.errors import TooManyUnfinishedGames
from service.bootstrap import Services, build
from service.settings import Settings
from workers.sweeper import expire_idle_games

IDLE_TTL_S = 3600


@pytest.fixture
def svc(redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str) -> Iterator[Services]:
    settings = Settings(
        redis_url=redis_target.url,
        key_prefix=key_prefix,
        max_unfinished_games_per_client=3,
        max_open_games_per_client=2,
        idle_game_ttl_s=IDLE_TTL_S,
    )
    yield build(settings, notifier=NoNotifier(), client=redis_client)


def started(svc: Services, client: str | None = "ip:a", tokens: dict[str, list[str]] | None = None) -> str:
    """A 2-player game ``client`` created and sat in twice: running, and nobody moves
    (its seat tokens go to ``tokens``)."""
    game_id = svc.app.create_game("schlitzohr", {}, [None, None], client)["game_id"]
    joined = [svc.app.join(game_id, "ada"), svc.app.join(game_id, "bob")]
    if tokens is not None:
        tokens[game_id] = [j.token for j in joined]
    return game_id


def running_index(svc: Services) -> set[str]:
    return {m.decode() for m in svc.redis.zrange(f"{svc.settings.key_prefix}games:running", 0, -1)}


def test_a_client_keeps_only_so_many_games_running_and_an_idle_one_expires(svc: Services) -> None:
    app = svc.app
    tokens: dict[str, list[str]] = {}
    games = [started(svc, tokens=tokens) for _ in range(3)]
    with pytest.raises(TooManyUnfinishedGames) as refused:
        app.create_game("schlitzohr", {}, [None, None], "ip:a")
    assert 0 < refused.value.retry_after_s <= IDLE_TTL_S
    with pytest.raises(TooManyUnfinishedGames):  # bots' games count too: they hold Redis as long
        app.create_game("schlitzohr", {}, ["random", "random"], "ip:a")
    started(svc, "ip:b"), started(svc, None)  # another client; the operator is never capped
    assert running_index(svc) >= set(games)

    now = time.time()
    assert expire_idle_games(svc, now) == []  # nothing idle yet
    assert expire_idle_games(svc, now + IDLE_TTL_S + 1) != []
    view = app.queries.view(games[0], None)
    assert view["status"] == "expired" and view["to_act"] == {} and view["seed"] is None
    last = app.store.read_range(games[0], ADMIN, view["version"], view["version"])[0]
    assert (last.type, last.actor) == ("GameExpired", {"kind": "system"})
    assert last.data["reason"] == "idle" and last.data["idle_s"] >= IDLE_TTL_S
    assert not running_index(svc) & set(games)
    app.create_game("schlitzohr", {}, [None, None], "ip:a")  # its places are free again

    for token in tokens[games[0]]:  # over: whoever was to act, no command is taken
        with pytest.raises(RuleViolation) as late:
            app.submit(games[0], token, {"kind": "roll"}, view["version"], None)
        assert late.value.code == "game_expired"


def test_a_game_played_within_the_ttl_is_looked_at_again_from_its_last_move(svc: Services) -> None:
    app = svc.app
    tokens: dict[str, list[str]] = {}
    game_id = started(svc, tokens=tokens)
    begun = time.time()
    time.sleep(1.1)  # the move comes a second after the start
    table = app.tables.load(game_id)
    [seat] = [int(s) for s in app.queries.legal(game_id, None)["to_act"]]
    app.submit(game_id, tokens[game_id][seat], {"kind": "roll"}, table.version, None)
    # Idle for the TTL counted from its start, not from its move: still running.
    assert expire_idle_games(svc, begun + IDLE_TTL_S + 0.5) == []
    assert app.queries.view(game_id, None)["status"] == "running"
    score = svc.redis.zscore(f"{svc.settings.key_prefix}games:running", game_id)
    assert score is not None and score >= begun + 1  # re-scored by its last event
    assert expire_idle_games(svc, score + IDLE_TTL_S + 1) == [game_id]


def test_an_ended_or_lost_entry_leaves_the_index_and_counts_no_more(svc: Services) -> None:
    app = svc.app
    games = [started(svc) for _ in range(3)]
    index = f"{svc.settings.key_prefix}games:running"
    svc.redis.zrem(index, games[0])  # as if its start had been lost: not open, not running
    svc.redis.hset(f"{svc.settings.key_prefix}game:{{{games[1]}}}:head", "e", 99)  # as if it ended
    app.create_game("schlitzohr", {}, [None, None], "ip:a")
    app.create_game("schlitzohr", {}, [None, None], "ip:a")
    with pytest.raises(TooManyUnfinishedGames):
        app.create_game("schlitzohr", {}, [None, None], "ip:a")


def test_creations_racing_at_the_cap_pass_one_at_a_time(svc: Services, monkeypatch: pytest.MonkeyPatch) -> None:
    app = svc.app
    started(svc), started(svc)
    outcomes: list[str] = []
    go = threading.Barrier(6)

    def create() -> None:
        go.wait(5)
        try:
            app.create_game("schlitzohr", {}, ["random", "random"], "ip:a")
            outcomes.append("created")
        except TooManyUnfinishedGames:
            outcomes.append("refused")

    threads = [threading.Thread(target=create) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert sorted(outcomes) == ["created"] + ["refused"] * 5
