"""A whole deployment on a 3-master Redis Cluster: bot and human games to their end.

The event store and the read models are on the session's local cluster
(``support.cluster``), RQ on the session's plain Redis (``TABLETOP_QUEUE_REDIS_URL``).
Two API instances (gunicorn, two gevent workers each) on the same cluster and prefix,
two ``tabletop worker`` processes, a sweeper and a projector -- every one a real
process configured like a deployment. Games are played over HTTP alternating between
the two instances (long polls included: on a cluster the stream hub gives way to one
blocking read per waiter), each is verified by the API and by ``tabletop verify
--game`` against the cluster URL, and the lobby (the projector's read model) shows
each one finished.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from functools import partial
from typing import Any

import psutil
import pytest
import redis
from redis.cluster import RedisCluster
from support.cluster import LocalCluster
from support.contract import ContractSession
from support.http_games import HttpApi
from support.live_server import LiveServer
from support.processes import (
    ROOT,
    delete_rq_keys,
    service_env,
    start_tabletop,
    stop_process,
    unique_queue,
    wait_until,
)
from support.redis import TestRedis, delete_prefix, unique_prefix

from engine.rng import SeededRandom
from service.app.notify import BotQueue
from service.bootstrap import build
from service.cli import main
from service.settings import Settings
from workers import sweeper

SETTINGS = {
    # On, but never reached: their counters live on the cluster too.
    "rate_limit_per_minute": 100_000,
    "create_limit_per_minute": 1_000,
    "verify_limit_per_minute": 1_000,
    "replay_limit_per_minute": 1_000,
    "long_poll_max_s": 5.0,
    "sweep_interval_s": 1.0,
}
GAME_TIMEOUT_S = 30.0


@dataclass
class Deployment:
    cluster_url: str
    prefix: str
    env: dict[str, str]
    apis: list[HttpApi]


def cluster_url(cluster: LocalCluster) -> str:
    first = cluster.nodes[0]
    return f"redis+cluster://{first.host}:{first.port}"


@pytest.fixture(scope="module")
def deployment(local_cluster: LocalCluster, redis_target: TestRedis) -> Iterator[Deployment]:
    url, prefix, queue = cluster_url(local_cluster), unique_prefix(), unique_queue()
    settings = {**SETTINGS, "queue_name": queue, "queue_redis_url": redis_target.url}
    env = service_env(url, prefix, queue, **settings)
    servers: list[LiveServer] = []
    processes: list[subprocess.Popen[bytes]] = []
    sessions = [ContractSession(), ContractSession()]
    try:
        # The bot processes first: they boot while the API instances do.
        for name in ("cluster-w1", "cluster-w2"):
            processes.append(start_tabletop(["worker", "--name", f"{name}-{queue}"], env))
        processes.append(start_tabletop(["sweeper"], env))
        processes.append(
            subprocess.Popen(
                [sys.executable, "-m", "workers.projector", "--claim-idle-ms", "1000"],
                env=env,
                cwd=ROOT,
                process_group=0,
            )
        )
        servers += [LiveServer(url, prefix, **settings) for _ in range(2)]
        with ThreadPoolExecutor(2) as pool:
            list(pool.map(LiveServer.start, servers))
        yield Deployment(
            url, prefix, env, [HttpApi(s, server.url) for s, server in zip(sessions, servers, strict=True)]
        )
        logs = [server.log_text() for server in servers]
        assert all("Traceback" not in log for log in logs), logs
        assert all(p.poll() is None for p in processes), [p.returncode for p in processes]
    finally:
        pids = [p.pid for p in processes] + [s.process.pid for s in servers if s.process]
        for pid in pids:  # all at once: each then shuts down while the others do
            with suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGTERM)
        for process in processes:
            stop_process(process)
        for server in servers:
            server.stop()
        for session in sessions:
            session.close()
        assert [pid for pid in pids if psutil.pid_exists(pid) and _alive(pid)] == []
        client = local_cluster.client()
        delete_prefix(client, prefix)
        client.close()
        plain = redis.Redis.from_url(redis_target.url)
        delete_rq_keys(plain, queue)
        plain.close()


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _view(api: HttpApi, game_id: str, after: int | None = None) -> dict[str, Any]:
    path = f"/v1/games/{game_id}" + ("" if after is None else f"?wait=5&after={after}")
    reply = api.call("GET", path)
    assert reply.status == 200, reply.body
    return dict(reply.body)


def _finished(api: HttpApi, game_id: str) -> dict[str, Any] | None:
    view = _view(api, game_id)
    # The seed reveal is a batch of its own right after GameEnded: wait for both.
    return view if view["status"] == "finished" and view["seed"] else None


def _create(api: HttpApi, game: str, bots: dict[str, str], options: dict[str, Any]) -> str:
    body = {"game": game, "players": 2, "bots": bots, "options": options}
    reply = api.call("POST", "/v1/games", body=body)
    assert reply.status == 201, reply.body
    return str(reply.body["game_id"])


def _check_verified(
    deployment: Deployment, game_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for api in deployment.apis:
        report = api.call("GET", f"/v1/games/{game_id}/verification").body
        assert report["ok"] and report["commands"] > 0, report
    capsys.readouterr()
    target = ["--redis-url", deployment.cluster_url, "--prefix", deployment.prefix]
    code = main(["verify", f"--game={game_id}", *target])  # an id may start with "-"
    out = capsys.readouterr()
    assert code == 0, out


def _in_lobby_finished(api: HttpApi, game_ids: set[str]) -> bool:
    page = api.call("GET", "/v1/games?status=finished&limit=100").body
    return game_ids <= {g["game_id"] for g in page["games"]}


def test_bot_and_human_games_play_to_the_end_on_a_cluster(
    deployment: Deployment, capsys: pytest.CaptureFixture[str]
) -> None:
    first, second = deployment.apis
    bot_games = [
        _create(first, "schlitzohr", {"0": "random", "1": "greedy"}, {"turn_cap": 10}),
        _create(second, "schlitzohr", {"0": "greedy", "1": "greedy"}, {"turn_cap": 10}),
        _create(first, "abluxxen", {"0": "random", "1": "greedy"}, {"rounds": 1}),
    ]
    human, token = _play_against_a_bot(deployment.apis)
    for i, game_id in enumerate(bot_games):
        final = wait_until(
            partial(_finished, deployment.apis[i % 2], game_id), GAME_TIMEOUT_S, "a bot game's end"
        )
        assert final["result"]["winners"]
    games = [*bot_games, human]
    for game_id in games:
        _check_verified(deployment, game_id, capsys)
    wait_until(lambda: _in_lobby_finished(second, set(games)), GAME_TIMEOUT_S, "the lobby")
    # Its rematch (the link under the finished game's hash tag, the new game under its
    # own), asked on one instance and found on the other.
    rematch = second.call("POST", f"/v1/games/{human}/rematch", token=token)
    assert rematch.status == 201 and rematch.body["view"]["status"] == "running", rematch.body
    assert first.call("GET", f"/v1/games/{human}/rematch").body["rematch"] == rematch.body["game_id"]
    # The container checks of this deployment: workers on RQ's Redis, the store a cluster.
    capsys.readouterr()
    for part in ("worker", "sweeper", "redis"):
        assert _health(deployment.env, part) == 0, (part, capsys.readouterr())


def _play_against_a_bot(apis: list[HttpApi]) -> tuple[str, str]:
    """A person (seat 0) against a greedy bot, each request to the other API instance;
    the bot's turns are awaited with long polls. Returns the game id once it ended, and
    the person's seat token."""
    game_id = _create(apis[0], "schlitzohr", {"1": "greedy"}, {"turn_cap": 10})
    joined = apis[1].call("POST", f"/v1/games/{game_id}/seats", body={"name": "ann"})
    assert joined.status == 201 and joined.body["seat"] == 0, joined.body
    token = joined.body["token"]
    pick = SeededRandom(b"cluster-human", "pick")
    view = _view(apis[0], game_id)
    deadline = time.monotonic() + GAME_TIMEOUT_S  # a bound, not a timed assert
    for step in range(400):
        assert time.monotonic() < deadline, f"game {game_id} stalled at {view['version']}"
        api = apis[step % 2]
        if view["status"] == "finished":
            final = wait_until(partial(_finished, api, game_id), GAME_TIMEOUT_S, "the seed reveal")
            assert final["result"]["winners"]
            return game_id, token
        if "0" not in view["to_act"]:  # the bot's turn: long-poll for the next version
            view = _view(api, game_id, after=view["version"])
            continue
        legal = api.call("GET", f"/v1/games/{game_id}/legal", token=token).body["commands"]
        reply = api.call(
            "POST",
            f"/v1/games/{game_id}/commands",
            token=token,
            body={"command": legal[pick.randbelow(len(legal), f"step{step}")]},
            headers={"If-Match": f'"{view["version"]}"'},
        )
        assert reply.status == 200, reply.body
        view = reply.body["view"]
    raise AssertionError(f"game {game_id} did not end")


def _health(env: dict[str, str], part: str) -> int:
    """``tabletop health PART`` as the deployment's containers run it."""
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "health", part], env=env, cwd=ROOT, timeout=30
    ).returncode


def test_bot_and_api_processes_refuse_to_start_on_a_cluster_without_a_queue_redis(
    local_cluster: LocalCluster,
) -> None:
    env = service_env(cluster_url(local_cluster), unique_prefix(), unique_queue())
    for command in ("worker", "sweeper", "serve"):
        done = subprocess.run(
            [sys.executable, "-m", "service.cli", command],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert done.returncode == 2, done
        assert "TABLETOP_QUEUE_REDIS_URL" in done.stderr and "Traceback" not in done.stderr


def test_the_sweeper_re_enqueues_a_lost_turn_on_the_queue_redis(
    local_cluster: LocalCluster, redis_target: TestRedis
) -> None:
    """The index is on the cluster, the jobs on RQ's Redis: a turn whose job was lost is
    found in ``<p>bots:waiting`` and enqueued again -- on the plain Redis, never the cluster."""
    prefix, queue = unique_prefix(), unique_queue()
    settings = Settings(
        redis_url=cluster_url(local_cluster),
        queue_redis_url=redis_target.url,
        key_prefix=prefix,
        queue_name=queue,
    )
    svc = build(settings)
    try:
        assert isinstance(svc.redis, RedisCluster) and not isinstance(svc.queue_redis, RedisCluster)
        created = svc.app.create_game("schlitzohr", {"turn_cap": 10}, ["random", "greedy"])
        game_id = created["game_id"]
        bots = BotQueue.of(settings, svc.queue_redis)
        assert bots.queue.count == 1  # the notifier's job, on RQ's Redis
        later = time.time() + settings.bot_stall_s + 1
        assert sweeper.sweep_once(svc, bots, now=later) == []  # still queued: left alone
        delete_rq_keys(svc.queue_redis, queue)  # lost (a flushed queue Redis)
        enqueued = sweeper.sweep_once(svc, bots, now=later)
        assert len(enqueued) == 1 and enqueued[0].startswith(f"bot-{game_id}-")
        assert bots.queue.job_ids == enqueued
        assert svc.redis.zscore(f"{prefix}bots:waiting", game_id) == pytest.approx(later)
    finally:
        delete_rq_keys(svc.queue_redis, queue)
        delete_prefix(svc.redis, prefix)
        svc.redis.close()
        svc.queue_redis.close()
