"""The live hub (service/http/live.py): appends published by the store's own script,
followed over one subscriber connection, on a real Redis.

Threads stand in for greenlets (the hub only uses ``threading``). No timings are
asserted: a holder is either handed what it waits for or reaches a generous timeout.
A holder reads as the event stream does: after each ``[]`` it reads the stream itself.
"""

from __future__ import annotations

import contextlib
import random
import socket
import threading
import time
from pathlib import Path

import pytest
import redis
from support.counter import counted, counter_game, counter_store, created
from support.durable import durable_server

from events.model import records
from events.model.envelope import SYSTEM, seat_actor
from events.redis_adapter.server import RedisServer
from events.redis_adapter.store import RedisEventStore
from service.http import live
from service.http.live import LiveHub, Subscription, live_hub_for

GENEROUS_S = 30.0


def make_hub(store: RedisEventStore, client: redis.Redis) -> LiveHub:
    hub = live_hub_for(client, lambda game_id: store.keys(game_id).live)
    assert hub is not None
    return hub


def new_game(store: RedisEventStore, game_id: str) -> None:
    seed = records.new_seed()
    store.create(counter_game(game_id), [created(seed)], seed, actor=SYSTEM)


def append(store: RedisEventStore, game_id: str, version: int, events: int = 1) -> int:
    batch = [counted(0, version + i) for i in range(events)]
    return store.append(counter_game(game_id), batch, version, actor=seat_actor(0)).last_version


def stored(
    client: redis.Redis, store: RedisEventStore, game_id: str, after: int
) -> list[tuple[bytes, bytes]]:
    """What the stream holds after ``after``: (entry id, stored text) pairs."""
    key = store.keys(game_id).events
    return [(entry_id, fields[b"e"]) for entry_id, fields in client.xrange(key, f"({after}-0", "+")]


def follow(
    following: Subscription, client: redis.Redis, store: RedisEventStore, game_id: str,
    until: int, after: int = 0,
) -> list[tuple[bytes, bytes]]:
    """Everything after ``after`` up to version ``until``, as an event stream gets it:
    handed over by the hub, or read after a ``[]``. Fails on a timeout (a lost event)."""
    seen = stored(client, store, game_id, after)  # the first read, after the subscription
    while not seen or int(seen[-1][0].split(b"-")[0]) < until:
        last = int(seen[-1][0].split(b"-")[0]) if seen else after
        entries = following.wait_entries(last, GENEROUS_S)
        assert entries is not None, f"timed out after version {last}: an event was lost"
        seen += stored(client, store, game_id, last) if entries == [] else [
            (entry_id, fields[b"e"]) for entry_id, fields in entries
        ]
    return seen


def settle(following: Subscription, after: int) -> None:
    """A new holder's first wait: "read for yourself" once Redis has confirmed the
    subscription; what it reads after that is covered by it."""
    assert following.wait_entries(after, GENEROUS_S) == []


@pytest.fixture
def store(redis_client: redis.Redis, key_prefix: str) -> RedisEventStore:
    return counter_store(redis_client, key_prefix)


def parked(hub: LiveHub, store: RedisEventStore, game_id: str) -> None:
    """Return once a holder of ``game_id`` is parked in the hub (fails after a generous
    deadline: a holder that never waits again)."""
    channel = store.keys(game_id).live.encode()
    deadline = time.monotonic() + GENEROUS_S
    while True:
        with hub._lock:
            if hub._games[channel].waiters:
                return
        assert time.monotonic() < deadline, "the holder never waited again"
        time.sleep(0.005)


def test_a_stream_is_handed_every_append_exactly_as_stored(
    store: RedisEventStore, redis_client: redis.Redis
) -> None:
    hub = make_hub(store, redis_client)
    new_game(store, "g")
    with hub.subscription("g") as following:
        # Confirmed first, and each append made while the holder waits: every one of
        # them is handed over (none read), whatever the machine's speed.
        settle(following, 1)

        def write() -> None:
            version = 1
            for events in (2, 1, 3, 1, 2):
                parked(hub, store, "g")
                version = append(store, "g", version, events)

        writer = threading.Thread(target=write)
        writer.start()
        got: list[tuple[bytes, bytes]] = []
        last = 1
        while last < 10:
            entries = following.wait_entries(last, GENEROUS_S)
            assert entries, f"after version {last}: {entries!r}, not handed over"
            got += [(entry_id, fields[b"e"]) for entry_id, fields in entries]
            last = int(got[-1][0].split(b"-")[0])
        writer.join()
    assert got == stored(redis_client, store, "g", 1)  # in order, none twice, none missing
    assert hub.messages == 5  # one message per append


def test_events_published_between_two_waits_are_handed_over_one_append_at_a_time(
    store: RedisEventStore, redis_client: redis.Redis
) -> None:
    """A holder busy while two appends came gets both without a read -- the first, then
    the second: each append is redacted as the game stood when it was made, so one that
    ends the game must not lend its end to the one before it."""
    hub = make_hub(store, redis_client)
    new_game(store, "g")
    with hub.subscription("g") as following:
        settle(following, 1)
        assert stored(redis_client, store, "g", 1) == []
        append(store, "g", 1)
        append(store, "g", 2, events=2)
        while hub.messages < 2:  # both messages reached the hub while nobody waited
            time.sleep(0.01)
        first = following.wait_entries(1, GENEROUS_S)
        second = following.wait_entries(2, GENEROUS_S)
    assert [entry_id for entry_id, _ in first or []] == [b"2-0"]
    assert [entry_id for entry_id, _ in second or []] == [b"3-0", b"4-0"]


def test_a_quiet_game_times_out_and_a_long_poll_sees_what_came_before_it(
    store: RedisEventStore, redis_client: redis.Redis
) -> None:
    hub = make_hub(store, redis_client)
    new_game(store, "busy")
    new_game(store, "quiet")
    append(store, "busy", 1)  # before the poll: its read of the head finds it at once
    head = lambda game_id: store.head(game_id).version  # noqa: E731
    with hub.subscription("busy") as busy:
        started = time.monotonic()
        busy.wait_newer(1, GENEROUS_S, lambda: head("busy"))
        assert time.monotonic() - started < GENEROUS_S / 2
    with hub.subscription("quiet") as quiet:
        settle(quiet, 1)
        assert quiet.wait_entries(1, 0.3) is None


def test_holders_joining_at_random_versions_never_miss_or_skip_an_event(
    store: RedisEventStore, redis_client: redis.Redis
) -> None:
    """Streams open at random moments while the game grows (each takes its subscription,
    then reads, then waits): each one ends with exactly the stored history."""
    hub = make_hub(store, redis_client)
    new_game(store, "g")
    pick = random.Random(16)
    last = 60
    bad: list[str] = []

    def stream(after: int) -> None:
        with hub.subscription("g") as following:
            try:
                if follow(following, redis_client, store, "g", last, after) != stored(
                    redis_client, store, "g", after
                ):
                    bad.append(f"after {after}: not the stored history")
            except AssertionError as error:
                bad.append(str(error))

    streams = []
    version = 1
    while version < last:
        for _ in range(2):
            streams.append(threading.Thread(target=stream, args=(pick.randint(0, version),)))
            streams[-1].start()
        version = append(store, "g", version, events=min(pick.randint(1, 3), last - version))
    for thread in streams:
        thread.join()
    assert bad == []


def test_a_game_nobody_follows_is_unsubscribed_after_lingering(
    store: RedisEventStore, redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "PING_S", 0.1)
    monkeypatch.setattr(live, "LINGER_S", 0.2)
    hub = make_hub(store, redis_client)
    new_game(store, "g")
    channel = store.keys("g").live
    with hub.subscription("g") as following:
        settle(following, 1)
        assert redis_client.pubsub_numsub(channel) == [(channel.encode(), 1)]
    deadline = time.monotonic() + GENEROUS_S
    while hub.following() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert hub.following() == 0
    assert redis_client.pubsub_numsub(channel) == [(channel.encode(), 0)]


class FreezingProxy:
    """A TCP proxy to Redis that can go silent: once frozen it forwards nothing more in
    either direction and closes nothing, like a peer gone without a word."""

    def __init__(self, target_port: int) -> None:
        self.frozen = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        self._target = target_port
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self._target))
            with self._lock:
                self._sockets += [client, server]
                if self._closed:  # accepted while closing: close these too
                    self._close_all()
                    return
            for source, sink in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(source, sink), daemon=True).start()

    def _pipe(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if not self.frozen.is_set():
                    sink.sendall(data)

    def close(self) -> None:
        self._listener.close()
        with self._lock:
            self._closed = True
            self._close_all()

    def _close_all(self) -> None:
        for sock in self._sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


def test_a_connection_that_stops_answering_is_replaced(
    store: RedisEventStore, redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A half-open connection (the peer gone without a word) must not leave streams
    waiting for ever: its unanswered ping breaks it, and holders read for themselves."""
    monkeypatch.setattr(live, "PING_S", 0.2)
    proxy = FreezingProxy(redis_client.connection_pool.connection_kwargs["port"])
    try:
        through = redis.Redis(port=proxy.port)
        hub = make_hub(store, through)
        new_game(store, "g")
        with hub.subscription("g") as following:
            settle(following, 1)
            frozen = hub._conn
            proxy.frozen.set()
            assert following.wait_entries(1, GENEROUS_S) == []  # woken: read for yourself
            assert hub._conn is not frozen
            proxy.frozen.clear()  # the hub's next connection gets through
            settle(following, 1)
            append(store, "g", 1)
            assert following.wait_entries(1, GENEROUS_S) is not None
            assert follow(following, redis_client, store, "g", until=2, after=1)[-1][0] == b"2-0"
        through.close()
    finally:
        proxy.close()


def test_redis_dying_wakes_every_holder_and_delivery_resumes(tmp_path: Path) -> None:
    server = durable_server(tmp_path)
    restarted = None
    try:
        client = server.client()
        store = counter_store(client, "crash:")
        hub = make_hub(store, client)
        new_game(store, "g")
        with hub.subscription("g") as following:
            settle(following, 1)
            got: list[list | None] = []
            waiter = threading.Thread(
                target=lambda: got.append(following.wait_entries(1, GENEROUS_S))
            )
            waiter.start()
            server.kill()
            waiter.join(GENEROUS_S)
            assert got == [[]]  # woken without entries: read for yourself
            restarted = RedisServer(
                directory=tmp_path, port=server.port, config=server.config
            ).start()
            append(store, "g", 1)
            assert follow(following, client, store, "g", until=2, after=1)[-1][0] == b"2-0"
        client.close()
    finally:
        (restarted or server).close()


def test_a_cluster_client_gets_no_live_hub() -> None:
    assert live_hub_for(object(), lambda game_id: game_id) is None
