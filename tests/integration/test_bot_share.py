"""One client's bot games cannot take the bot workers from everyone else.

Repro (``tabletop up``, two bot workers, before ``service.app.bot_share``): one address
created 25 all-random-bot games; another client's bot then answered in 0.47 s (p50)
instead of 0.034 s, and the backlog grew with every further creation the creation limit
let through (a random Schlitzohr game costs about 4 worker-seconds; 30 a minute are
allowed). With the share on, the same flood left the other client at 0.035 s.

These tests run on real Redis with real ``tabletop worker`` processes and assert facts
from RQ's own job records and the games' states, never timings: which game finished
while which still ran, which turns were deferred and which were not.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from rq import Queue
from rq.job import Job
from rq.registry import FinishedJobRegistry, ScheduledJobRegistry
from support.processes import running, service_env, wait_until
from support.redis import TestRedis

from events.redis_adapter.keys import CLOCKS_DUE
from service.app.bot_share import BotShare, bucket_key, turn_cost_s
from service.app.notify import BotQueue, bot_job_id, bot_queue_names
from service.app.timeouts import DEFERRED
from service.bootstrap import Services, build
from service.settings import Settings
from workers.sweeper import RECOVER_AFTER_S, sweep_clocks, sweep_once

SHORT = {"turn_cap": 10}
SHARE = 0.15
"""A small share (7.5 cheap turns a second) and burst (one turn), so that a handful of
games is already a flood, however fast or loaded the machine: the share, not the worker,
must be what holds the flood back."""
BURST_S = 0.03
FLOOD = 3


@pytest.fixture
def settings(redis_target: TestRedis, key_prefix: str, queue_name: str) -> Settings:
    return Settings(
        redis_url=redis_target.url, key_prefix=key_prefix, queue_name=queue_name,
        bot_share=SHARE, bot_burst_s=BURST_S,
    )


@pytest.fixture
def svc(settings: Settings) -> Iterator[Services]:
    services = build(settings)
    yield services
    services.redis.close()


def _status(svc: Services, game_id: str) -> str:
    return str(svc.app.queries.view(game_id, None)["status"])


def _jobs_of(svc: Services, game_id: str) -> list[Job]:
    queue = Queue(bot_queue_names(svc.settings)[0], connection=svc.redis)
    ids = [i for i in FinishedJobRegistry(queue=queue).get_job_ids() if game_id in i]
    return [job for job in Job.fetch_many(ids, connection=svc.redis) if job is not None]


def _deferred_s(job: Job) -> float:
    """How long a job waited between its creation and its queueing (0 unless scheduled)."""
    assert job.created_at is not None and job.enqueued_at is not None
    return (job.enqueued_at - job.created_at).total_seconds()


def test_a_flooding_clients_games_wait_for_its_share_while_another_clients_game_plays_through(
    svc: Services, redis_target: TestRedis, key_prefix: str, queue_name: str
) -> None:
    flood = [
        svc.app.create_game("schlitzohr", SHORT, ["random", "random"], "ip:192.0.2.1")["game_id"]
        for _ in range(FLOOD)
    ]
    other = svc.app.create_game("schlitzohr", SHORT, ["random", "random"], "ip:192.0.2.2")["game_id"]
    env = service_env(redis_target.url, key_prefix, queue_name, bot_share=SHARE, bot_burst_s=BURST_S)
    with running(["worker"], env):  # one worker: the scarce resource the clients share
        wait_until(lambda: _status(svc, other) == "finished", 120, "the other client's game to end")
        still_running = [g for g in flood if _status(svc, g) == "running"]
        # Nothing is dropped: every deferred turn is played in the end.
        wait_until(lambda: all(_status(svc, g) == "finished" for g in flood), 240, "the flood to end")
    # The other client's game (created last) ended while every flooding game still ran:
    # with a queue shared per game, each of the five would have had a fifth of the worker.
    assert still_running == flood
    flood_jobs = [job for game_id in flood for job in _jobs_of(svc, game_id)]
    other_jobs = _jobs_of(svc, other)
    assert len(flood_jobs) > FLOOD * 4 and len(other_jobs) > 8
    # The flood's turns waited for its share (in RQ's scheduled registry, not the queue);
    # the other client spent only its own, so its turns past the burst waited far less.
    flood_waits = sorted(_deferred_s(job) for job in flood_jobs)
    other_waits = sorted(_deferred_s(job) for job in other_jobs)
    assert flood_waits[len(flood_waits) // 2] > 2 * max(other_waits[len(other_waits) // 2], 0.01), (
        flood_waits[len(flood_waits) // 2], other_waits[len(other_waits) // 2]
    )


def test_a_clients_turns_within_its_burst_go_at_once_and_later_ones_are_spaced_by_its_share(
    svc: Services, settings: Settings
) -> None:
    share = BotShare(svc.redis, settings.key_prefix, settings)
    step = turn_cost_s(False, settings) / SHARE  # the bucket's clock advances this per turn
    burst = BURST_S / SHARE
    delays = [share.delay_s("ip:192.0.2.7", strong=False) for _ in range(20)]
    within = int(burst / step)
    assert delays[:within] == [0.0] * within
    # Past the burst each turn waits one step longer than the one before it (the calls
    # themselves take microseconds of Redis' clock).
    for before, after in zip(delays[within + 1 :], delays[within + 2 :], strict=False):
        assert after - before == pytest.approx(step, abs=0.005)
    # Another client is not charged for it, and a strong turn costs its whole budget.
    assert share.delay_s("ip:192.0.2.8", strong=False) == 0.0
    strong_step = turn_cost_s(True, settings) / SHARE
    first, second = (share.delay_s("ip:192.0.2.9", strong=True) for _ in range(2))
    assert first == 0.0 and second == pytest.approx(strong_step - burst, abs=0.005)
    # The bucket outlives the time it has been paid up to (else a flood would start over).
    ttl = svc.redis.ttl(bucket_key(settings.key_prefix, "ip:192.0.2.7"))
    assert ttl >= delays[-1] + burst


def test_an_operators_game_is_not_charged_and_a_share_of_zero_charges_nobody(
    svc: Services, redis_target: TestRedis, key_prefix: str, queue_name: str
) -> None:
    game_id = svc.app.create_game("schlitzohr", SHORT, ["random", "random"])["game_id"]
    assert Queue(bot_queue_names(svc.settings)[0], connection=svc.redis).count == 1
    assert svc.redis.keys(f"{key_prefix}botshare:*") == []
    off = Settings(redis_url=redis_target.url, key_prefix=key_prefix, queue_name=queue_name, bot_share=0)
    services = build(off)
    try:
        services.app.create_game("schlitzohr", SHORT, ["random", "random"], "ip:192.0.2.3")
        assert svc.redis.keys(f"{key_prefix}botshare:*") == []
        assert svc.redis.keys(f"{key_prefix}game:*:botowner") == []
    finally:
        services.redis.close()
    assert _status(svc, game_id) == "running"


def test_the_sweeper_leaves_a_deferred_turn_alone_until_it_is_overdue(svc: Services) -> None:
    bots = BotQueue.of(svc.settings, svc.redis)
    client = "ip:192.0.2.4"
    share = BotShare(svc.redis, svc.settings.key_prefix, svc.settings)
    while share.delay_s(client, strong=False) < 30:  # spend far ahead: the next turn waits
        pass
    game_id = svc.app.create_game("schlitzohr", SHORT, ["random", "random"], client)["game_id"]
    version = svc.app.queries.view(game_id, None)["version"]
    job = Job.fetch(bot_job_id(game_id, version, 0), connection=svc.redis)
    registry = ScheduledJobRegistry(queue=Queue(job.origin, connection=svc.redis))
    due = registry.get_scheduled_time(job).timestamp()
    assert job.get_status() == "scheduled" and Queue(job.origin, connection=svc.redis).count == 0
    # Waiting for its share is not a stall: the sweeper does not even look before it is due.
    assert sweep_once(svc, bots, now=due - 1) == []
    assert sweep_once(svc, bots, now=due + RECOVER_AFTER_S / 2) == []
    # Overdue (no worker moved it): recovered at once, as any lost turn.
    assert sweep_once(svc, bots, now=due + RECOVER_AFTER_S + 1) == [job.id]


def test_a_clients_idle_clocked_games_wait_for_its_share_and_another_clients_clock_is_kept(
    svc: Services, key_prefix: str
) -> None:
    # The sweeper decides for timed-out seats itself: one client's many idle clocked games
    # would otherwise fill its passes and make every clock late.
    clock = {"per_decision_s": 1, "policy": "bot:random"}
    flooder, other = "ip:192.0.2.5", "ip:192.0.2.6"
    share = BotShare(svc.redis, key_prefix, svc.settings)
    while share.delay_s(flooder, strong=False) < 30:  # its share is spent far ahead
        pass
    games = {}
    for client in (flooder, other):
        game_id = svc.app.create_game("abluxxen", {}, [None, None], client, clock=clock)["game_id"]
        for seat in range(2):
            svc.app.join(game_id, f"p{seat}")
        games[client] = game_id
    now = time.time() + 10  # both seats' deadlines passed long ago
    outcomes = sweep_clocks(svc, now=now)
    assert outcomes == {games[flooder]: DEFERRED, games[other]: "timed_out"}
    # Looked at again once the share has paid for it (about 30 s on), not before.
    later = svc.redis.zscore(f"{key_prefix}{CLOCKS_DUE}", games[flooder])
    assert later is not None and now * 1000 + 25_000 < later < now * 1000 + 35_000
    assert games[flooder] not in sweep_clocks(svc, now=now + 5)  # the other's next timeout may be
    assert _status(svc, games[flooder]) == "running"
    # Once paid for (the bucket is on Redis' own clock: as if those 30 s had passed), the
    # game's next look times it out like any other.
    svc.redis.delete(bucket_key(key_prefix, flooder))
    assert sweep_clocks(svc, now=later / 1000 + 1)[games[flooder]] == "timed_out"
