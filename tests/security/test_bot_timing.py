"""A strong bot's decision time tells nobody anything (docs/security.md, "timing we control").

Every event carries its time to the microsecond. A strong bot searches for as long as
its position needs, and its position includes hidden facts (its hand, the colours it
inspected), so a bot that submitted as soon as it had decided would let the other
players time its secrets. ``workers.bots.decision_time_s`` pads every strong decision
to the whole budget. These tests run a real ``tabletop worker`` on real Redis and read
the gaps from the stored events' own times: a lower bound the padding guarantees (a
sleep), not a speed measurement.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime

import pytest
import redis
from support.processes import delete_rq_keys, running, service_env, unique_queue, wait_until
from support.redis import TestRedis

from events.model.redaction import ADMIN
from service.bootstrap import Services, build
from service.settings import Settings
from workers.bots import decision_time_s

BUDGET_S = 1.5
"""Far above what the strong bot's playout budget needs on this machine (about 0.3 s
on average, docs/bots.md), so without the padding most gaps would be shorter."""

TURNS = 3


@pytest.fixture
def queue_name(redis_client: redis.Redis) -> Iterator[str]:
    name = unique_queue()
    yield name
    delete_rq_keys(redis_client, name)


@pytest.fixture
def svc(redis_target: TestRedis, key_prefix: str, queue_name: str) -> Iterator[Services]:
    services = build(Settings(redis_url=redis_target.url, key_prefix=key_prefix, queue_name=queue_name))
    yield services
    services.redis.close()


def test_only_the_strong_level_is_padded_to_the_budget() -> None:
    settings = Settings(bot_budget_s=0.7, bot_think_ms=200)
    assert decision_time_s("strong", settings) == 0.7
    assert decision_time_s("greedy", settings) == 0.2
    assert decision_time_s("random", Settings(bot_budget_s=0.7)) == 0.0


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
    history = svc.store.read_all(game_id, ADMIN)
    # A bot batch starts where the actor or the command changes; the gap before it runs
    # from the previous batch's last event to the batch's first one.
    gaps: list[float] = []
    previous = history[start - 1]
    for envelope in history[start:]:
        new_batch = (envelope.actor, envelope.command) != (previous.actor, previous.command)
        if new_batch and envelope.actor.get("kind") == "bot":
            gaps.append(_stamp(envelope.time) - _stamp(previous.time))
        previous = envelope
    assert len(gaps) >= TURNS, gaps
    assert min(gaps) >= BUDGET_S, gaps
