"""Bot turns on real RQ workers (``tabletop worker`` processes) and real Redis.

Each test has its own key prefix and RQ queue, so xdist workers never take each
other's jobs. Games are kept short (Schlitzohr's smallest turn cap, two seats).
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from rq import Queue
from rq.job import Job
from rq.registry import StartedJobRegistry
from support.processes import (
    running,
    service_env,
    start_tabletop,
    stop_process,
    wait_until,
)
from support.redis import TestRedis

from engine.registry import game_names
from events.redis_adapter.keys import GameKeys, worker_alive_key
from service.app.notify import BotQueue, bot_job_id
from service.bootstrap import Services, build
from service.settings import Settings
from workers import bots
from workers.rq_worker import PREPARE_DELAY_ENV
from workers.sweeper import RECOVER_AFTER_S, sweep_once

SHORT = {"schlitzohr": {"turn_cap": 10}, "abluxxen": {}}
"""Options that keep a game short enough for a test."""

GAME_TIMEOUT_S = 120.0


@pytest.fixture
def svc(
    redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str, queue_name: str
) -> Iterator[Services]:
    """The services a test drives games with; their notifier enqueues on the test's queue."""
    services = build(
        Settings(redis_url=redis_target.url, key_prefix=key_prefix, queue_name=queue_name)
    )
    yield services
    services.redis.close()


@pytest.fixture
def env(redis_target: TestRedis, key_prefix: str, queue_name: str) -> dict[str, str]:
    return service_env(redis_target.url, key_prefix, queue_name)


def status(svc: Services, game_id: str) -> dict[str, Any]:
    return svc.app.queries.view(game_id, None)


def finished(svc: Services, game_id: str) -> bool:
    """Ended and its seed out: the worker whose move ended the game appends
    ``SeedRevealed`` in an append of its own, right after ``GameEnded``."""
    view = status(svc, game_id)
    return bool(view["status"] == "finished" and view["seed"] is not None)


def assert_complete(svc: Services, game_id: str) -> None:
    """The game ended, its seed is revealed, its chain verifies, and bots made every move."""
    history = svc.app.queries.history(game_id, 0, 0, 1000)["events"]
    assert history[-1]["type"] == "SeedRevealed"
    assert svc.store.verify(game_id) == len(history)
    engine_moves = [e for e in history if e["command"] is not None]
    assert engine_moves and all(e["actor"]["kind"] == "bot" for e in engine_moves)


@pytest.mark.parametrize("game", game_names())
def test_an_all_bot_game_plays_to_its_end(svc: Services, env: dict[str, str], game: str) -> None:
    game_id = svc.app.create_game(game, SHORT[game], ["random", "greedy"])["game_id"]
    with running(["worker"], env):
        wait_until(
            lambda: finished(svc, game_id), GAME_TIMEOUT_S, f"{game} game {game_id} to finish"
        )
    assert_complete(svc, game_id)
    assert svc.redis.zscore(f"{svc.settings.key_prefix}bots:waiting", game_id) is None


def test_a_mixed_game_advances_after_each_human_command(svc: Services, env: dict[str, str]) -> None:
    game_id = svc.app.create_game("schlitzohr", SHORT["schlitzohr"], ["random", None])["game_id"]
    human = svc.app.join(game_id, "ada")
    with running(["worker"], env):
        for step in range(500):
            view = wait_until(
                lambda: _humans_turn_or_end(svc, game_id),
                GAME_TIMEOUT_S,
                "the bot to play its turn",
            )
            if view["status"] == "finished":
                break
            legal = svc.app.queries.legal(game_id, human.seat)["commands"]
            outcome = svc.app.submit(
                game_id, human.token, legal[step % len(legal)], view["version"]
            )
            assert outcome["version"] > view["version"]
        else:
            pytest.fail("the game did not end")
    history = svc.app.queries.history(game_id, 0, 0, 1000)["events"]
    actors = {e["actor"]["kind"] for e in history if e["command"] is not None}
    assert actors == {"seat", "bot"}


def _humans_turn_or_end(svc: Services, game_id: str) -> dict[str, Any] | None:
    view = status(svc, game_id)
    return view if view["status"] == "finished" or "1" in view["to_act"] else None


def test_a_turn_enqueued_and_run_several_times_is_played_once(
    svc: Services, env: dict[str, str]
) -> None:
    # Seat 0 is a bot and acts first; seat 1 is a person, so play stops at their turn.
    game_id = svc.app.create_game("schlitzohr", SHORT["schlitzohr"], ["random", None])["game_id"]
    svc.app.join(game_id, "ada")
    version = status(svc, game_id)["version"]
    queue = Queue(env["TABLETOP_QUEUE_NAME"], connection=svc.redis)
    assert (
        queue.fetch_job(bot_job_id(game_id, version, 0)) is not None
    )  # enqueued by the join's notifier
    bot_queue = BotQueue.of(svc.settings, svc.redis)
    assert bot_queue.enqueue(game_id, version, 0) is False  # the same id again: a no-op
    for attempt in ("a", "b"):  # what the sweeper does for a lost job
        assert bot_queue.enqueue(game_id, version, 0, attempt=attempt)
    assert queue.count == 3
    worker = start_tabletop(["worker", "--burst"], env)
    assert worker.wait(GAME_TIMEOUT_S) == 0
    results = [
        Job.fetch(bot_job_id(game_id, version, 0, a), connection=svc.redis).return_value()
        for a in (None, "a", "b")
    ]
    assert sorted(results) == ["not_due", "not_due", "played"]
    history = svc.app.queries.history(game_id, 0, version, 1000)["events"]
    assert [e["actor"] for e in history[:1]] == [{"kind": "bot", "seat": 0}]
    assert history[0]["version"] == version + 1
    assert "1" in status(svc, game_id)["to_act"]  # the bot played on until the person's turn


def test_concurrent_runs_of_one_turn_write_one_batch(svc: Services) -> None:
    game_id = svc.app.create_game("abluxxen", {}, ["random", None])["game_id"]
    svc.app.join(game_id, "ada")
    view = status(svc, game_id)
    assert "0" in view["to_act"], "the bot (seat 0) plays first"
    version = view["version"]
    bots.use_services(svc)  # no worker runs: only these three runs of one turn
    try:
        barrier = threading.Barrier(3)
        results: list[str] = []

        def run() -> None:
            barrier.wait()
            results.append(bots.play_bot_turn(game_id, version, 0))

        threads = [threading.Thread(target=run) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert "played" in results and set(results) <= {"played", "stale", "not_due"}
        assert bots.play_bot_turn(game_id, version, 0) == "not_due"  # late: the game moved on
    finally:
        bots.use_services(None)
    keyed_batches = svc.redis.hkeys(GameKeys.of(svc.settings.key_prefix, game_id).idempotency)
    assert keyed_batches == [f"bot:0:{version}".encode()]  # one submit went through
    history = svc.app.queries.history(game_id, 0, version, 1000)["events"]
    assert {e["actor"]["kind"] for e in history} == {"bot"} and history[0]["version"] == version + 1


def finish_with_sweeper(svc: Services, game_id: str, env: dict[str, str]) -> None:
    """Run a fast sweeper and a worker until the stalled game finishes, then check it."""
    fast = {**env, "TABLETOP_SWEEP_INTERVAL_S": "0.2"}
    with running(["sweeper"], fast), running(["worker"], fast):
        wait_until(
            lambda: finished(svc, game_id),
            GAME_TIMEOUT_S,
            f"game {game_id} to finish after the sweep",
        )
    assert_complete(svc, game_id)


def test_a_worker_killed_mid_job_does_not_stall_the_game(
    svc: Services, env: dict[str, str]
) -> None:
    game_id = svc.app.create_game("schlitzohr", SHORT["schlitzohr"], ["random", "random"])[
        "game_id"
    ]
    version = status(svc, game_id)["version"]
    queue = Queue(env["TABLETOP_QUEUE_NAME"], connection=svc.redis)
    slow = start_tabletop(["worker"], {**env, "TABLETOP_BOT_THINK_MS": "60000"})
    try:
        wait_until(
            lambda: StartedJobRegistry(queue=queue).get_job_ids(),
            30,
            "the slow worker to start a job",
        )
        dead_worker = Job.fetch(bot_job_id(game_id, version, 0), connection=svc.redis).worker_name
    finally:
        stop_process(slow, signal.SIGKILL)  # the worker and RQ's scheduler, mid-job
    assert status(svc, game_id)["version"] == version
    finish_with_sweeper(svc, game_id, {**env, "TABLETOP_BOT_STALL_S": "0.5"})
    # Two recoveries are right, and which one runs depends on how fast the sweeper starts:
    # while the dead worker's heartbeat lives (HEARTBEAT_TTL_S) the turn is retried as a
    # "-r" job; once it has expired the job counts as dead and is enqueued again under its
    # own id. Either way another worker must have played the lost turn.
    prefix = bot_job_id(game_id, version, 0) + "-r"
    swept = [k for k in svc.redis.scan_iter(match=f"rq:job:{prefix}*")]
    if not swept:
        again = Job.fetch(bot_job_id(game_id, version, 0), connection=svc.redis)
        assert again.get_status() == "finished", "another worker played the lost turn"
        assert again.worker_name != dead_worker


def test_a_worker_killed_between_taking_a_job_and_starting_it_does_not_stall_the_game(
    svc: Services, env: dict[str, str]
) -> None:
    """The job is off its queue (BLPOP) but still "queued": RQ never looks at it again."""
    game_id = svc.app.create_game("schlitzohr", SHORT["schlitzohr"], ["random", "random"])[
        "game_id"
    ]
    version = status(svc, game_id)["version"]
    job_id = bot_job_id(game_id, version, 0)
    queue = Queue(env["TABLETOP_QUEUE_NAME"], connection=svc.redis)
    taking = start_tabletop(["worker"], {**env, PREPARE_DELAY_ENV: "60"})
    try:
        wait_until(lambda: job_id not in queue.get_job_ids(), 30, "the worker to take the job")
    finally:
        stop_process(taking, signal.SIGKILL)  # after BLPOP, before "started"
    assert Job.fetch(job_id, connection=svc.redis).get_status() == "queued"
    assert status(svc, game_id)["version"] == version
    finish_with_sweeper(svc, game_id, env)


def test_the_sweeper_leaves_queued_turns_and_finished_games_alone(svc: Services) -> None:
    game_id = svc.app.create_game("schlitzohr", SHORT["schlitzohr"], ["random", "random"])[
        "game_id"
    ]
    bots_queue = BotQueue.of(svc.settings, svc.redis)
    later = 10_000_000_000.0  # far beyond bot_stall_s
    assert (
        sweep_once(svc, bots_queue, now=later) == []
    )  # its first job is still queued: no duplicate
    Job.fetch(
        bot_job_id(game_id, status(svc, game_id)["version"], 0), connection=svc.redis
    ).delete()
    enqueued = sweep_once(svc, bots_queue, now=later)
    assert len(enqueued) == 1 and enqueued[0].startswith(
        bot_job_id(game_id, status(svc, game_id)["version"], 0)
    )
    assert sweep_once(svc, bots_queue, now=later + 1) == []  # bumped: one attempt per stall period
    waiting = f"{svc.settings.key_prefix}bots:waiting"
    svc.redis.zadd(waiting, {"no-such-game": 0})
    sweep_once(svc, bots_queue, now=later + 1000)
    assert svc.redis.zscore(waiting, "no-such-game") is None


def test_the_sweeper_re_enqueues_a_turn_whose_job_is_dead_whatever_its_state(
    svc: Services,
) -> None:
    """Dead (at once, under the turn's own id): missing, failed, started by a worker without
    a heartbeat, scheduled but overdue. Popped (off its queue, yet not started): pushed
    back. Left alone: queued, scheduled and not yet due,
    started by a live worker (until ``bot_stall_s``, then a fresh ``-r`` id beside it)."""
    game_id = svc.app.create_game("schlitzohr", SHORT["schlitzohr"], ["random", "random"])[
        "game_id"
    ]
    version = status(svc, game_id)["version"]
    job_id = bot_job_id(game_id, version, 0)
    bots_queue = BotQueue.of(svc.settings, svc.redis)
    job_key = f"rq:job:{job_id}"
    scheduled = f"rq:scheduled:{svc.settings.queue_name}"
    clock = [time.time()]

    def sweep(after: float = RECOVER_AFTER_S + 1) -> list[str]:
        clock[0] += after
        return sweep_once(svc, bots_queue, now=clock[0])

    def set_state(status_: str, worker: str = "") -> None:
        svc.redis.hset(job_key, mapping={"status": status_, "worker_name": worker})

    assert sweep() == []  # queued: the workers are behind, not dead
    queue_key = f"rq:queue:{svc.settings.queue_name}"
    assert svc.redis.lpop(queue_key) == job_id.encode()  # taken by a worker that then died
    assert sweep() == [job_id]  # popped: back at the front of its queue
    assert svc.redis.lrange(queue_key, 0, -1) == [job_id.encode()]
    assert sweep() == []  # queued again: left alone
    for dead in ("failed", "stopped", "canceled", "finished"):
        set_state(dead)
        assert sweep() == [job_id], dead
        assert Job.fetch(job_id, connection=svc.redis).get_status() == "queued"
    Job.fetch(job_id, connection=svc.redis).delete()
    assert sweep() == [job_id]  # lost entirely
    set_state("started", "ghost")  # its worker has no heartbeat: dead or cut off
    assert sweep() == [job_id]
    svc.redis.set(worker_alive_key(svc.settings.key_prefix, "busy"), "{}", ex=60)
    set_state("started", "busy")  # a live worker runs it: left alone ...
    assert sweep() == []
    retried = sweep(after=svc.settings.bot_stall_s)  # ... until it runs for too long
    assert len(retried) == 1 and retried[0].startswith(job_id + "-r")
    svc.redis.zadd(scheduled, {job_id: clock[0] + 3 * RECOVER_AFTER_S})
    set_state("scheduled")
    assert sweep() == []  # a retry not yet due
    assert sweep(after=3 * RECOVER_AFTER_S) == [job_id]  # overdue: no scheduler moves it
    assert svc.redis.zscore(scheduled, job_id) is None
