"""A bot's decision time tells nobody anything (docs/security.md, "timing we control").

Every event carries its time to the microsecond. A bot thinks for as long as its
position needs, and its position includes hidden facts (its hand, the colours it
inspected), so a bot that submitted as soon as it had decided would let the other
players time its secrets: a strong bot's search, and a cheap bot's too (an Abluxxen
greedy bot's time grows with the sets its hand can play). ``workers.bots.decision_time_s``
pads every strong decision to the whole budget and every other one to a floor. These tests run a real ``tabletop worker`` on real Redis and read
the gaps from the stored events' own times: a lower bound the padding guarantees (a
sleep), not a speed measurement.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from support.processes import running, service_env, wait_until
from support.redis import TestRedis

from events.model.redaction import ADMIN
from service.bootstrap import Services, build
from service.settings import Settings
from workers.bots import decision_time_s

BUDGET_S = 1.5
"""Far above what the strong bot's playout budget needs on this machine (about 0.3 s
on average, docs/bots.md), so without the padding most gaps would be shorter."""

TURNS = 3

FLOOR_S = 0.12
"""The cheap bots' floor in the second test: some twenty times their usual gap."""

CHEAP_TURNS = 8


@pytest.fixture
def svc(redis_target: TestRedis, key_prefix: str, queue_name: str) -> Iterator[Services]:
    services = build(Settings(redis_url=redis_target.url, key_prefix=key_prefix, queue_name=queue_name))
    yield services
    services.redis.close()


def test_the_strong_level_takes_the_budget_and_every_other_the_floor() -> None:
    settings = Settings(bot_budget_s=0.7, bot_think_ms=200, bot_floor_ms=30)
    assert decision_time_s("strong", settings) == 0.7
    assert decision_time_s("greedy", settings) == 0.2
    assert decision_time_s("random", Settings(bot_budget_s=0.7, bot_floor_ms=30)) == 0.03


def test_a_strong_search_stops_early_enough_to_end_inside_its_padded_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The search checks its deadline only between worlds, so it overruns by up to a
    # world; counted from the turn's start and cut at 90 % of the budget, that overrun
    # (and the view and legal loads before the search) stays inside the padded budget.
    import workers.bots as bots

    seen: dict[str, Any] = {}

    def choose(*args: Any, deadline: Any) -> Any:
        seen["deadline"] = deadline
        return args[3][0]

    monkeypatch.setattr(bots.ai, "choose", choose)
    now = [100.0]
    monkeypatch.setattr(bots.time, "monotonic", lambda: now[0])
    settings = Settings(bot_budget_s=1.0)
    bots.choose_command("abluxxen", "strong", {}, [{"kind": "play"}], None, settings, started=99.5)  # type: ignore[arg-type]
    deadline = seen["deadline"]
    now[0] = 99.5 + 0.89
    assert not deadline()
    now[0] = 99.5 + 0.9
    assert deadline()


def test_the_floor_is_on_by_default() -> None:
    # Cheap decisions take about 0.1-5 ms here (docs/bots.md, p99 0.8 ms for greedy
    # Abluxxen); a default of 0 would leave their timing to the queue's noise, which
    # 487 plays saw through (bench/bot_timing_bench.py).
    assert decision_time_s("greedy", Settings()) >= 0.005
    assert decision_time_s("random", Settings()) >= 0.005


def _stamp(text: str) -> float:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def test_every_strong_decision_takes_the_whole_budget(
    svc: Services, redis_target: TestRedis, key_prefix: str, queue_name: str
) -> None:
    game_id = svc.app.create_game("abluxxen", {}, ["strong", "strong"])["game_id"]
    start = svc.app.queries.view(game_id, None)["version"]
    env = service_env(redis_target.url, key_prefix, queue_name, bot_budget_s=BUDGET_S)

    with running(["worker"], env):
        wait_until(
            lambda: svc.app.queries.view(game_id, None)["version"] > start + TURNS * 2,
            60,
            f"{TURNS} strong turns",
        )
    gaps = _bot_gaps(svc, game_id, start)
    assert len(gaps) >= TURNS, gaps
    assert min(gaps) >= BUDGET_S, gaps


def test_every_cheap_decision_takes_the_floor(
    svc: Services, redis_target: TestRedis, key_prefix: str, queue_name: str
) -> None:
    # Greedy Abluxxen: the level whose time tracked its hand. Without the floor the
    # gaps here are about 6 ms (the queue's round trip and the decision).
    game_id = svc.app.create_game("abluxxen", {}, ["greedy", "greedy"])["game_id"]
    start = svc.app.queries.view(game_id, None)["version"]
    env = service_env(redis_target.url, key_prefix, queue_name, bot_floor_ms=int(FLOOR_S * 1000))

    with running(["worker"], env):
        wait_until(
            lambda: svc.app.queries.view(game_id, None)["version"] > start + CHEAP_TURNS * 2,
            60,
            f"{CHEAP_TURNS} greedy turns",
        )
    gaps = _bot_gaps(svc, game_id, start)
    assert len(gaps) >= CHEAP_TURNS, gaps
    assert min(gaps) >= FLOOR_S, gaps


def _bot_gaps(svc: Services, game_id: str, start: int) -> list[float]:
    """Seconds before each bot batch after version ``start``: a batch starts where the
    actor or the command changes, and its gap runs from the previous batch's last event
    to the batch's first one."""
    history = svc.store.read_all(game_id, ADMIN)
    gaps: list[float] = []
    previous = history[start - 1]
    for envelope in history[start:]:
        new_batch = (envelope.actor, envelope.command) != (previous.actor, previous.command)
        if new_batch and envelope.actor.get("kind") == "bot":
            gaps.append(_stamp(envelope.time) - _stamp(previous.time))
        previous = envelope
    return gaps


def test_a_timed_out_turns_decision_is_paced_like_a_bots(
    redis_target: TestRedis, key_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The sweeper decides a timed-out seat's turn with a greedy bot. Written right after
    # each decision, one game's TurnTimedOut would follow the previous write of the pass
    # by its own thinking time (about a millisecond), which a spectator of both games
    # could read. So every decision of a pass is made before its first write, and that
    # write waits out the floor.
    from service.app import timeouts
    from workers import sweeper

    decided_at: list[float] = []
    decide = timeouts._decision

    def timed_decision(*args: Any) -> Any:
        decision = decide(*args)
        decided_at.append(time.time())
        return decision

    monkeypatch.setattr(timeouts, "_decision", timed_decision)
    services = build(
        Settings(redis_url=redis_target.url, key_prefix=key_prefix, bot_floor_ms=int(FLOOR_S * 1000))
    )
    try:
        clock = {"per_decision_s": 1, "policy": "bot:greedy"}
        games = []
        for _ in range(3):
            game_id = services.app.create_game("abluxxen", {}, [None, None], clock=clock)["game_id"]
            for seat in range(2):
                services.app.join(game_id, f"p{seat}")
            games.append(game_id)
        passed = time.time()
        outcomes = sweeper.sweep_clocks(services, now=passed + 10)
        assert outcomes == {game_id: "timed_out" for game_id in games}
        histories = [services.store.read_all(game_id, ADMIN) for game_id in games]
    finally:
        services.redis.close()
    first_write = min(_stamp(_timeout_and_decision(h)[0].time) for h in histories)
    assert len(decided_at) == len(games)
    assert max(decided_at) < first_write  # no write of the pass follows a decision
    assert first_write - passed >= FLOOR_S


def _timeout_and_decision(history: list[Any]) -> tuple[Any, Any]:
    """A history's ``TurnTimedOut`` and the last event of the decision after it."""
    at = next(i for i, e in enumerate(history) if e.type == "TurnTimedOut")
    decided = [e for e in history[at + 1 :] if e.actor.get("kind") == "timeout"]
    assert decided, [e.type for e in history[at:]]
    return history[at], decided[-1]
