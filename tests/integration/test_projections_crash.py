"""A projector that dies mid-stream and restarts ends equal to a full rebuild,
with every event applied exactly once.

- a real ``python -m workers.projector`` process, killed with SIGKILL while games
  are being written, restarted under the same or another consumer name;
- in process, a crash exactly between a game's update and the XACK of its feed
  entries: the entries stay pending and are redelivered to the restarted consumer
  (its own pending list) or to another one (XAUTOCLAIM), and applied once.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
from support.histories import Player, seed_for, write_game
from support.readmodels import dump_read_models, rebuilt_read_models
from support.redis import TestRedis

from events.projections.keys import ReadModelKeys
from events.projections.reconcile import known_games, lagging_games
from events.redis_adapter import feed
from events.redis_adapter.store import RedisEventStore
from workers.projector import Projector

pytestmark = pytest.mark.store

ROOT = Path(__file__).resolve().parents[2]
SHARDS = 3
GAMES: list[tuple[str, str, list[Player | None]]] = [
    ("k1", "schlitzohr", [("Ann", None), ("Bob", "random")]),
    ("k2", "abluxxen", [("Bob", None), ("Cy", None), ("Ann", "random")]),
    ("k3", "schlitzohr", [("Cy", None), ("Ann", None), ("Dee", None)]),
    ("k4", "abluxxen", [("Dee", "random"), ("Ann", None)]),
]


class Crash(Exception):
    """Stands for the process dying at the hook's point."""


def pending_entries(client: redis.Redis, prefix: str) -> int:
    return sum(
        client.xpending(feed.feed_key(prefix, s), feed.GROUP)["pending"] for s in range(SHARDS)
    )


def all_caught_up(client: redis.Redis, prefix: str) -> bool:
    keys = ReadModelKeys(prefix)
    games = known_games(client, keys)
    return not lagging_games(client, keys, games) and pending_entries(client, prefix) == 0


def spawn(url: str, prefix: str, consumer: str, log: Path) -> subprocess.Popen[bytes]:
    args = [
        sys.executable,
        "-m",
        "workers.projector",
        "--redis-url",
        url,
        "--prefix",
        prefix,
        "--shards",
        str(SHARDS),
        "--consumer",
        consumer,
        "--claim-idle-ms",
        "0",
        "--reconcile-every",
        "3600",
    ]
    with log.open("ab") as out:
        return subprocess.Popen(args, cwd=ROOT, stdout=out, stderr=out)


def wait_for(condition: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.mark.parametrize("restart_as", ["p1", "p2"])
def test_projector_killed_mid_stream_and_restarted_equals_a_full_rebuild(
    redis_target: TestRedis,
    redis_client: redis.Redis,
    store: RedisEventStore,
    key_prefix: str,
    tmp_path: Path,
    restart_as: str,
) -> None:
    log = tmp_path / "projector.log"
    process = spawn(redis_target.url, key_prefix, "p1", log)
    keys = ReadModelKeys(key_prefix)
    appended = 0

    def publish(game_id: str, version: int) -> None:
        nonlocal appended
        feed.publish(redis_client, key_prefix, game_id, version, shards=SHARDS)
        appended += 1
        if game_id == "k2" and appended % 40 == 0 and process.poll() is None:
            # Mid-stream: it has projected something and is still receiving news.
            wait_for(lambda: redis_client.hget(keys.view("k1"), "v"), 20, "a first update")
            process.send_signal(signal.SIGKILL)
            process.wait(10)

    try:
        for game_id, name, players in GAMES:
            write_game(store, game_id, name, players, seed=seed_for(game_id), on_append=publish)
        assert process.returncode == -signal.SIGKILL
        assert lagging_games(redis_client, keys, known_games(redis_client, keys))
        process = spawn(redis_target.url, key_prefix, restart_as, log)
        wait_for(lambda: all_caught_up(redis_client, key_prefix), 30, "the restarted projector")
    finally:
        process.send_signal(signal.SIGTERM)
        exit_code = process.wait(10)
    assert exit_code == 0, log.read_text()
    live = dump_read_models(redis_client, key_prefix)
    assert live == rebuilt_read_models(redis_client, key_prefix)


@pytest.mark.parametrize("restart_as", ["c1", "c2"])
def test_crash_between_update_and_ack_is_redelivered_and_applied_once(
    redis_client: redis.Redis, store: RedisEventStore, key_prefix: str, restart_as: str
) -> None:
    heads = {}
    for game_id, name, players in GAMES[:3]:
        written = write_game(
            store,
            game_id,
            name,
            players,
            seed=seed_for(game_id),
            on_append=lambda g, v: feed.publish(redis_client, key_prefix, g, v, shards=SHARDS),
        )
        heads[game_id] = written.version
    updated: list[str] = []

    def crash_on_second(game_id: str) -> None:
        updated.append(game_id)
        if len(updated) == 2:
            raise Crash

    first = Projector(
        redis_client, key_prefix, shards=SHARDS, consumer="c1", after_update=crash_on_second
    )
    with pytest.raises(Crash):
        first.catch_up_once()
    crashed_game = updated[1]
    assert (
        redis_client.hget(ReadModelKeys(key_prefix).view(crashed_game), "v")
        == str(heads[crashed_game]).encode()
    )  # its update was written ...
    assert pending_entries(redis_client, key_prefix) > 0  # ... but not acknowledged

    second = Projector(
        redis_client, key_prefix, shards=SHARDS, consumer=restart_as, claim_idle_ms=0
    )
    second.catch_up_once()
    assert first.applied + second.applied == sum(heads.values())  # each event once
    assert pending_entries(redis_client, key_prefix) == 0
    live = dump_read_models(redis_client, key_prefix)
    assert live == rebuilt_read_models(redis_client, key_prefix)
