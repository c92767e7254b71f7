"""Waiting for a stream's next entry, cheaply: one Redis connection per process for all waiters.

Here: the stream hub over any Redis streams (the account notice streams use it), the
caps on waits, and the per-app :class:`Waits`. A game's event streams and long polls
wait on :mod:`service.http.live` instead, whose messages the append script publishes
(no ``XREAD`` re-sent after every event); this hub needs no cooperation from writers.

An SSE stream or a long poll mostly waits. Before, each waiter held a Redis connection
blocked in ``XREAD BLOCK`` on its game's stream (and, under ``gthread``, a worker
thread). Here every waiter of a process registers with one :class:`StreamHub`, whose
single reader issues one ``XREAD BLOCK`` over the streams of all games being waited on
and wakes the waiters whose game moved on. Under gevent workers a waiter is a parked
greenlet: 2,000 idle streams cost 2,000 sockets to clients, one socket to Redis and no
worker thread. (The module only uses ``threading``; gevent's monkey patching makes
that cooperative, and under ``gthread`` the hub still saves the Redis connections.)

Guarantees:

- :meth:`StreamHub.wait` returns True once the game's stream holds an entry after the
  given version (possibly spuriously, e.g. after a Redis error: callers re-read), False
  when the timeout passes first. It never returns late because of other waiters: the
  hub's ``XREAD`` names each stream with the lowest version still waited on (an
  explicit id, never ``$``), so an event appended between a waiter's own read and its
  registration is found at once, and a waiter on a stream the in-flight ``XREAD`` does
  not cover wakes the reader through a private wake stream (``XADD``; again an explicit
  id, so no wake-up can be lost between the reader's snapshot and its ``XREAD``).
- The hub only wakes: a woken waiter reads its stream itself. The hub never looks
  inside an entry (it reads entry ids only).
- Redis Cluster: one ``XREAD`` cannot span slots, so :func:`hub_for` gives no hub and
  callers fall back to a blocking read per waiter.

:class:`WaitSlots` caps how many waits run at once per client and per process, so a
flood of idle connections cannot take a worker's whole connection budget; over a cap
the request is refused with a problem (429 ``too_many_streams`` per client, 503
``server_busy`` per process) before it starts waiting.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import redis

from events.redis_adapter.lane import lane_for
from service.http.live import LiveHub, live_hub_for
from service.http.problems import Problem

log = logging.getLogger(__name__)

HUB_BLOCK_MS = 5_000
"""Longest one hub ``XREAD BLOCK`` lasts; new waiters wake it earlier via the wake stream."""

ERROR_PAUSE_S = 0.5
"""Pause of the hub after a Redis error before it tries again."""

IDLE_EXIT_S = 10.0
"""The reader ends after this long without waiters (the next waiter starts a new one)."""

REGROUP_S = 0.002
"""Seconds the reader waits after waking waiters before its next XREAD (see ``_run``):
at most this much delay for an event, against a round trip per re-registered waiter."""

WAKE_TTL_S = 3_600
"""The wake stream expires this long after its last wake-up (a hub that died leaves none)."""

READ_COUNT = 1
"""Entries the hub's XREAD reads per stream: the first one after the lowest version
waited on is enough to wake every waiter behind it. A waiter further along stays and is
named in the next XREAD, which answers at once if its stream has moved past it too."""


class _Waiter:
    __slots__ = ("after", "event")

    def __init__(self, after: int) -> None:
        self.after = after
        self.event = threading.Event()


class StreamHub:
    """One reader for every waiter of a process. Thread- and greenlet-safe.

    ``client``: a dedicated ``redis.Redis`` (not a cluster) without a socket timeout
    shorter than :data:`HUB_BLOCK_MS`; ``key_of(game_id)`` names a game's event stream.
    The reader starts with the first waiter (after the fork, in the worker).
    """

    def __init__(self, client: Any, key_of: Callable[[str], str], wake_prefix: str) -> None:
        self._redis = client
        # Its one blocking XREAD at a time runs on a kept connection (see _read).
        self._lane = lane_for(client, blocking=True)  # XREAD BLOCK: never multiplexed
        self._key_of = key_of
        self._wake_key = f"{wake_prefix}hub:{uuid.uuid4().hex}".encode()
        self._wake_id = b"0-0"
        self._lock = threading.Lock()
        self._waiters: dict[bytes, list[_Waiter]] = {}
        self._inflight: dict[bytes, int] = {}  # what the XREAD now running covers
        self._woken = False  # a wake-up was sent for the XREAD now running
        # No XREAD running (the reader is between two, or idle): a new waiter needs no
        # wake-up, the reader names it in its next XREAD.
        self._between = True
        self._work = threading.Event()
        self._thread: threading.Thread | None = None

    def waiting(self) -> int:
        """How many waiters are registered now (for metrics and tests)."""
        with self._lock:
            return sum(len(w) for w in self._waiters.values())

    def wait(self, game_id: str, after: int, timeout_s: float) -> bool:
        """Wait until ``game_id``'s stream has an entry after version ``after`` (True, also
        spuriously after a Redis error) or ``timeout_s`` passes (False). Callers read the
        entries themselves afterwards."""
        if timeout_s <= 0:
            return False
        key = self._key_of(game_id).encode()
        waiter = _Waiter(after)
        with self._lock:
            self._waiters.setdefault(key, []).append(waiter)
            covered = key in self._inflight and self._inflight[key] <= after
            must_wake = not (covered or self._between or self._woken) and self._thread is not None
            if must_wake:
                self._woken = True
            self._ensure_reader()
        self._work.set()
        if must_wake:
            self._wake()
        try:
            return waiter.event.wait(timeout_s)
        finally:
            self._forget(key, waiter)

    def _ensure_reader(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="tabletop-stream-hub", daemon=True)
            self._thread.start()

    def _forget(self, key: bytes, waiter: _Waiter) -> None:
        with self._lock:
            waiters = self._waiters.get(key)
            if waiters is not None and waiter in waiters:
                waiters.remove(waiter)
                if not waiters:
                    del self._waiters[key]

    def _wake(self) -> None:
        """Make the reader's running ``XREAD`` return (it also reads the wake stream)."""
        try:
            pipe = self._redis.pipeline(transaction=False)
            pipe.xadd(self._wake_key, {b"w": b"1"}, maxlen=8, approximate=False)
            pipe.expire(self._wake_key, WAKE_TTL_S)
            pipe.execute()
        except redis.RedisError as error:  # the reader retries on its own after a pause
            log.warning("stream hub: wake-up failed: %r", error)

    def _run(self) -> None:
        idle_since = time.monotonic()
        while True:
            with self._lock:
                streams = {key: min(w.after for w in ws) for key, ws in self._waiters.items()}
                self._inflight = streams
                self._woken = False
                self._between = not streams
                if not streams and time.monotonic() - idle_since > IDLE_EXIT_S:
                    self._thread = None  # under the lock: the next waiter starts a reader
                    return
            if not streams:
                self._work.wait(1.0)
                self._work.clear()
                continue
            idle_since = time.monotonic()
            request: dict[bytes, bytes] = {key: b"%d-0" % after for key, after in streams.items()}
            request[self._wake_key] = self._wake_id
            try:
                reply = self._read(request)
            except Exception as error:  # noqa: BLE001 - Redis down: wake everyone, they read and fail or retry
                with self._lock:
                    self._between = True
                log.warning("stream hub: XREAD failed: %r", error)
                self._wake_all()
                time.sleep(ERROR_PAUSE_S)
                continue
            if self._deliver(_newest_ids(reply)):
                # The woken waiters send their events and most wait again at once: give
                # them a moment to do so before the next XREAD, so that it names them
                # (each one that came after it started would cost a wake-up round trip).
                time.sleep(REGROUP_S)

    def _read(self, request: dict[bytes, bytes]) -> Any:
        """XREAD of ``request`` (stream key -> the id to read after), blocking up to
        :data:`HUB_BLOCK_MS`. On the client's lane where it has one
        (``events.redis_adapter.lane``: no pool checkout per call, the reply as read,
        which :func:`_newest_ids` reads), else through the client."""
        if self._lane is None:
            return self._redis.xread(request, count=READ_COUNT, block=HUB_BLOCK_MS)
        return self._lane.execute(
            "XREAD", "COUNT", READ_COUNT, "BLOCK", HUB_BLOCK_MS,
            "STREAMS", *request.keys(), *request.values(),
        )

    def _deliver(self, read: Iterable[tuple[bytes, bytes]]) -> bool:
        """Wake the waiters behind what the XREAD answered; True if it woke any."""
        woke = False
        with self._lock:
            self._between = True
            for key, newest_id in read:
                if key == self._wake_key:
                    self._wake_id = newest_id
                    continue
                waiters = self._waiters.get(key)
                if not waiters:
                    continue
                newest = int(newest_id.split(b"-", 1)[0])
                # Woken waiters leave the list now, so that the next XREAD names the
                # lowest version still waited on (not one that was just delivered).
                still = []
                for waiter in waiters:
                    if waiter.after < newest:
                        waiter.event.set()
                        woke = True
                    else:
                        still.append(waiter)
                if still:
                    self._waiters[key] = still
                else:
                    del self._waiters[key]
        return woke

    def _wake_all(self) -> None:
        with self._lock:
            for waiters in self._waiters.values():
                for waiter in waiters:
                    waiter.event.set()


def _newest_ids(reply: Any) -> Iterator[tuple[bytes, bytes]]:
    """(stream key, id of its newest entry read) pairs of an XREAD reply (RESP2 list or
    RESP3 dict, as redis-py's callback makes it or as read on a lane), as bytes (the
    hub's client does not decode responses)."""
    if not reply:
        return
    pairs = reply.items() if isinstance(reply, dict) else reply
    for key, entries in pairs:
        if isinstance(reply, dict):
            entries = entries[0]
        if entries:
            key = key if isinstance(key, bytes) else str(key).encode()
            yield key, _as_bytes(entries[-1][0])


def _as_bytes(value: Any) -> bytes:
    return value if isinstance(value, bytes) else str(value).encode()


def hub_for(client: Any, key_of: Callable[[str], str], prefix: str) -> StreamHub | None:
    """A hub with its own connection beside ``client``'s pool; None for a Redis Cluster."""
    pool = getattr(client, "connection_pool", None)
    if pool is None or not isinstance(client, redis.Redis):
        return None
    kwargs = dict(pool.connection_kwargs)
    # The hub blocks for HUB_BLOCK_MS at a time: a shorter read timeout would cut it off.
    kwargs["socket_timeout"] = None
    kwargs.pop("decode_responses", None)
    own = redis.ConnectionPool(connection_class=pool.connection_class, **kwargs)
    return StreamHub(redis.Redis(connection_pool=own), key_of, prefix)


class WaitSlots:
    """Counts the waits (streams, long polls) running in this process, per client.

    ``acquire`` refuses over a cap by raising :class:`Problem`; ``release`` gives the
    slot back (exactly once per successful ``acquire``). In-process only: with N worker
    processes a client may hold up to N times ``per_client``.
    """

    def __init__(self, per_client: int, per_process: int) -> None:
        self.per_client = per_client
        self.per_process = per_process
        self._lock = threading.Lock()
        self._held: dict[str, int] = {}
        self._total = 0

    @property
    def total(self) -> int:
        return self._total

    def acquire(self, client: str) -> None:
        with self._lock:
            if self.per_process > 0 and self._total >= self.per_process:
                raise Problem(
                    503,
                    "server_busy",
                    "this server holds as many open streams and long polls as it may; "
                    "try again shortly",
                    {"Retry-After": "5"},
                )
            held = self._held.get(client, 0)
            if self.per_client > 0 and held >= self.per_client:
                raise Problem(
                    429,
                    "too_many_streams",
                    f"at most {self.per_client} event streams and long polls may be open "
                    "at once per client; close one first",
                    {"Retry-After": "5"},
                )
            self._held[client] = held + 1
            self._total += 1

    def release(self, client: str) -> None:
        with self._lock:
            held = self._held.get(client, 0) - 1
            if held > 0:
                self._held[client] = held
            else:
                self._held.pop(client, None)
            self._total -= 1


class Held:
    """A WSGI response body that gives a wait slot back when it is closed (the WSGI
    server always closes a body it was given: at the stream's end, or when a write
    fails because the client went away). No ``__del__``: a release from the garbage
    collector could run while this greenlet holds the slots' lock."""

    def __init__(self, body: Iterable[str], release: Callable[[], None]) -> None:
        self._body = iter(body)
        self._release: Callable[[], None] | None = release

    def __iter__(self) -> Held:
        return self

    def __next__(self) -> str:
        return next(self._body)

    def close(self) -> None:
        close = getattr(self._body, "close", None)
        try:
            if close is not None:
                close()
        finally:
            release, self._release = self._release, None
            if release is not None:
                release()


EXTENSION = "tabletop.waits"
"""The key of this app's :class:`Waits` in ``app.extensions``."""


class Waits:
    """The live hub of the games' streams and long polls (None: block per waiter, on a
    Redis Cluster) and the slots of one app."""

    def __init__(self, live: LiveHub | None, slots: WaitSlots) -> None:
        self.live = live
        self.slots = slots


def install(app: Any, services: Any) -> Waits:
    """Give ``app`` a live hub over ``services``' Redis and slots from its settings."""
    settings = services.settings
    store = services.store
    live = live_hub_for(services.redis, lambda game_id: store.keys(game_id).live)
    waits = Waits(live, WaitSlots(settings.streams_per_client, settings.streams_per_process))
    app.extensions[EXTENSION] = waits
    return waits


def current() -> Waits:
    """The :class:`Waits` of the current app."""
    from flask import current_app

    return current_app.extensions[EXTENSION]  # type: ignore[no-any-return]


def client_key(game_id: str, seat: Any) -> str:
    """Whom a wait is counted against: the verified seat (``seat`` is an int only after
    its token was checked), else the client's address (the peer, or the address a
    trusted proxy named: ``TABLETOP_TRUSTED_PROXIES``). Never unverified header text."""
    from service.http import auth

    if type(seat) is int:
        return f"seat:{game_id}:{seat}"
    return f"addr:{auth.client_address()}"
