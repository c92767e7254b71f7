"""Bot work is shared fairly (issue 11, finding 6): strong bots cannot starve the others.

Repro: 20 creations of all-strong-bot games slowed another game's bot turns from under
0.06 s to 10-15 s -- every turn went to one FIFO queue, so a greedy bot's turn waited
behind one strong turn (a full thinking budget) per strong game.

The defence (``service/app/notify.py``): strong turns go to ``<queue>-strong``, the
others to ``<queue>``, and every worker takes from ``<queue>`` first. These tests run
real ``tabletop worker`` processes on real Redis and assert ordering facts read from
RQ's own job records, never timings (the timings are in
``bench/bots_fairness_bench.py``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from rq import Queue
from rq.job import Job
from rq.registry import FinishedJobRegistry
from support.processes import running, service_env, wait_until
from support.redis import TestRedis

from service.app.notify import BotQueue, bot_job_id, bot_queue_names
from service.bootstrap import Services, build
from service.settings import Settings
from workers.sweeper import sweep_once

SHORT = {"turn_cap": 10}
STRONG_GAMES = 8
BUDGET_S = "0.05"  # each strong turn thinks this long: enough to queue up, short to test


@pytest.fixture
def svc(redis_target: TestRedis, key_prefix: str, queue_name: str) -> Iterator[Services]:
    settings = Settings(redis_url=redis_target.url, key_prefix=key_prefix, queue_name=queue_name)
    services = build(settings)
    yield services
    services.redis.close()


def _finished_jobs(svc: Services, name: str) -> list[Job]:
    queue = Queue(name, connection=svc.redis)
    jobs = Job.fetch_many(FinishedJobRegistry(queue=queue).get_job_ids(), connection=svc.redis)
    return [job for job in jobs if job is not None]


def _status(svc: Services, game_id: str) -> str:
    return str(svc.app.queries.view(game_id, None)["status"])


def test_a_greedy_game_finishes_while_many_strong_games_are_still_queued(
    svc: Services, redis_target: TestRedis, key_prefix: str, queue_name: str
) -> None:
    # The strong games come first: in one FIFO queue, each of their turns would be
    # ahead of every turn of the greedy game.
    strong = [
        svc.app.create_game("schlitzohr", SHORT, ["strong", "strong"])["game_id"]
        for _ in range(STRONG_GAMES)
    ]
    greedy = svc.app.create_game("schlitzohr", SHORT, ["greedy", "greedy"])["game_id"]
    cheap_queue, strong_queue = bot_queue_names(svc.settings)
    assert Queue(strong_queue, connection=svc.redis).count == STRONG_GAMES
    env = service_env(redis_target.url, key_prefix, queue_name, bot_budget_s=BUDGET_S)
    with running(["worker"], env):  # one worker: the scarce resource the games share
        wait_until(lambda: _status(svc, greedy) == "finished", 120, "the greedy game to finish")
        still_running = [g for g in strong if _status(svc, g) == "running"]
    # Completion: the greedy game ended while every strong game was still being played.
    assert still_running == strong
    # Ordering: no strong turn started before the greedy game's last turn had ended,
    # but for the one a worker may have in hand when a greedy turn is enqueued.
    greedy_turns = [j for j in _finished_jobs(svc, cheap_queue) if greedy in j.id]
    last_greedy = max(j.ended_at for j in greedy_turns if j.ended_at is not None)
    strong_before = [
        j
        for j in _finished_jobs(svc, strong_queue)
        if j.started_at is not None and j.started_at < last_greedy
    ]
    counts = (len(greedy_turns), len(strong_before))
    assert len(greedy_turns) > 3 and len(strong_before) <= 1, counts


def test_the_sweeper_re_enqueues_a_lost_turn_on_the_queue_of_its_level(svc: Services) -> None:
    bots = BotQueue.of(svc.settings, svc.redis)
    cheap_queue, strong_queue = bot_queue_names(svc.settings)
    games = {
        level: svc.app.create_game("schlitzohr", SHORT, [level, level])["game_id"]
        for level in ("strong", "random")
    }
    for game_id in games.values():  # the first turns are lost
        version = svc.app.queries.view(game_id, None)["version"]
        Job.fetch(bot_job_id(game_id, version, 0), connection=svc.redis).delete()
    enqueued = sweep_once(svc, bots, now=10_000_000_000.0)
    assert len(enqueued) == 2
    strong_ids = Queue(strong_queue, connection=svc.redis).get_job_ids()
    cheap_ids = Queue(cheap_queue, connection=svc.redis).get_job_ids()
    assert [i for i in enqueued if games["strong"] in i] == strong_ids
    assert [i for i in enqueued if games["random"] in i] == cheap_ids
