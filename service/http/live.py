"""Live delivery of a game's new events to the streams of this process: Redis pub/sub.

Every append publishes its events on the game's live channel (``scripts.APPEND``'s
``live`` option: ``<first version>\\n<event>\\n<event>...``, the stored texts, in the
same script as the append, so in the same order). One :class:`LiveHub` per process
holds one subscriber connection for every game that a stream or long poll of the
process follows, and hands each waiter the entries after its own version.

Why not a blocking ``XREAD`` over the streams being waited on (``waits.StreamHub``,
which the account notice streams still use): every event ended that read, which then
had to be sent again naming every waited stream -- a send, a reply, and Redis
registering the reader on every key, for each batch of events. A subscriber
connection only receives: an event costs one message, whatever else is waited on.
Measured in ``bench/protocol_bench.py`` (``docs/bench-rounds.md``, *Eighth round*).

Guarantees (the stream must stay gap-free although pub/sub forgets what it sent
while no one listened):

- A :class:`Subscription` is taken before its holder's first read of the game. Its
  :meth:`~Subscription.wait_entries` answers the entries after ``after`` (consecutive
  from ``after + 1``), ``[]`` for "read for yourself", or None when the timeout
  passed with nothing new. It never answers None while an event after ``after``
  exists that was appended after the holder's previous read.
- How: the hub trusts its messages only from the moment Redis confirmed the
  subscription on the current connection (an *epoch*). A wait whose holder last
  looked in an earlier epoch (or before any) answers ``[]`` at once, and every
  waiter is woken with ``[]`` when a subscription is confirmed or the connection
  breaks: the read that follows is then covered by the subscription. Messages keep
  the game's latest published version and its last few entries, so a holder that
  registers just after a message (it was busy sending the previous batch) gets them
  at once, or ``[]`` when they no longer reach back to its version. They are handed
  over one append at a time, as a history read at that version has them: an append
  is redacted as the game stood when it was made, even if the next one ended it.
- A silent connection is pinged every :data:`PING_S`; no answer within another
  :data:`PING_S` counts as broken. Broken: every waiter reads for itself, the hub
  reconnects (pausing :data:`ERROR_PAUSE_S` after a failure) and subscribes again.
- A game no holder follows any more is unsubscribed after :data:`LINGER_S` (a
  stream between two waits, or a long-polling client polling again, keeps it).

The channel carries the full stored events, private parts included, as the event
stream itself does: nothing leaves the process before the store's read path
(``RedisEventReader.stored_of``, then ``events.model.redaction.served_form``) has
redacted it for its viewer.
Redis Cluster: :func:`live_hub_for` gives no hub (callers block per waiter).
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Callable
from typing import Any, cast

import hiredis
import redis
from redis.connection import AbstractConnection

from events.redis_adapter.decode import Entry
from service.locks import section_lock

log = logging.getLogger(__name__)

PING_S = 10.0
"""A subscriber connection silent this long is pinged; unanswered this long again, it is broken."""

ERROR_PAUSE_S = 0.5
"""Pause after a failed connection before the next attempt."""

LINGER_S = 5.0
"""A game without holders stays subscribed this long (the next wait finds it ready)."""

RECENT = 16
"""Most entries of a game kept from its last messages (for holders a message or two behind)."""

READ_BYTES = 65536


class _Game:
    """What the hub knows of one subscribed game. Guarded by the hub's lock."""

    __slots__ = ("waiters", "users", "epoch", "live", "latest", "recent", "idle_since")

    def __init__(self) -> None:
        self.waiters: list[Subscription] = []
        self.users = 0
        self.epoch = 0  # the hub's epoch when Redis last confirmed this subscription
        self.live = False  # confirmed on the current connection
        self.latest = 0  # highest version published since ``epoch`` (0: none seen)
        # (version, entry, last version of its append): consecutive, ending at ``latest``
        self.recent: list[tuple[int, Entry, int]] = []
        self.idle_since: float | None = None

    def since(self, after: int) -> list[Entry]:
        """The entries after ``after`` to the end of the append that holds ``after + 1``;
        [] unless ``recent`` holds ``after + 1``. One append at a time, as a read of the
        history at that version has them: an append is redacted as the game stood when it
        was made, even when the next one (ending the game) came before this holder was
        back to wait."""
        if not self.recent or self.recent[0][0] > after + 1:
            return []
        out = []
        for version, entry, end in self.recent:
            if version > after:
                out.append(entry)
                if version == end:
                    break
        return out

    def take(self, first: int, entries: list[Entry]) -> None:
        """Keep a message's entries (versions ``first``...), dropping what it repeats."""
        last = first + len(entries) - 1
        if last <= self.latest:
            return
        if first > self.latest + 1:
            self.recent = []  # a gap (a message before this epoch): start again here
        fresh = [
            (first + i, entry, last) for i, entry in enumerate(entries) if first + i > self.latest
        ]
        self.recent = (self.recent + fresh)[-RECENT:]
        self.latest = last


class Subscription:
    """One holder's following of one game (a stream, a long poll). Not shared between
    greenlets or threads; :meth:`close` it (or use it as a context manager)."""

    def __init__(self, hub: LiveHub, game: _Game, seen: int) -> None:
        self._hub, self._game = hub, game
        # The epoch in which this holder last looked (read the game); -1: in none, the
        # subscription was not confirmed then. Taken before the holder's first read.
        self._seen = seen
        self._event = threading.Event()
        self.after = 0
        self.entries: list[Entry] = []
        self._closed = False

    def wait_entries(self, after: int, timeout_s: float) -> list[Entry] | None:
        """See the module docstring: entries after ``after``, [] (read for yourself) or
        None (``timeout_s`` passed)."""
        if timeout_s <= 0:
            return None
        hub, game = self._hub, self._game
        with hub._lock:
            if game.live and game.epoch != self._seen:
                self._seen = game.epoch
                return []  # subscribed (again) since this holder last read: it reads now
            if game.live and game.latest > after:
                return game.since(after)
            self.after, self.entries = after, []
            self._event.clear()
            game.waiters.append(self)
        woken = self._event.wait(timeout_s)
        with hub._lock:
            if self in game.waiters:
                game.waiters.remove(self)
            entries = self.entries
            if game.epoch != self._seen or not game.live:
                self._seen = game.epoch if game.live else -1
                return []  # the subscription changed while it waited: read for yourself
        return entries if woken else None

    def wait_newer(self, after: int, timeout_s: float, head: Callable[[], int]) -> None:
        """Return once the game may be past version ``after`` or ``timeout_s`` passed: a
        long poll, for a holder whose read came before this subscription was taken --
        ``head()`` (the stored version) is read again once the subscription is confirmed."""
        deadline = time.monotonic() + timeout_s
        entries: list[Entry] | None = []
        while entries == [] and (remaining := deadline - time.monotonic()) > 0:
            if head() > after:
                return
            entries = self.wait_entries(after, remaining)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._hub._release(self._game)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LiveHub:
    """One subscriber connection per process for the live channels of its games.

    ``client``: a plain ``redis.Redis`` (its connection settings are copied for a
    connection of the hub's own); ``channel_of(game_id)`` names a game's channel.
    The reader starts with the first subscription (after the fork, in the worker).
    """

    def __init__(self, client: redis.Redis, channel_of: Callable[[str], str]) -> None:
        kwargs = dict(client.connection_pool.connection_kwargs)
        kwargs.pop("decode_responses", None)
        pool_class = client.connection_pool.connection_class
        self._pool = redis.ConnectionPool(connection_class=pool_class, **kwargs)
        self._channel_of = channel_of
        # Around the dicts, the games' state and waking waiters only -- nothing in it waits
        # (``service.locks``): the OS's lock, cheaper than gevent's on every delivery and wait.
        self._lock = section_lock()
        self._send_lock = threading.Lock()  # whole commands, in the order of the dict's changes
        self._games: dict[bytes, _Game] = {}
        self._conn: AbstractConnection | None = None
        self._epoch = 0
        self._thread: threading.Thread | None = None
        self.messages = 0  # for tests and metrics

    def subscription(self, game_id: str) -> Subscription:
        """Follow ``game_id`` (take it before reading the game)."""
        channel = self._channel_of(game_id).encode()
        with self._send_lock:
            with self._lock:
                game = self._games.get(channel)
                new = game is None
                if game is None:
                    game = self._games[channel] = _Game()
                game.users += 1
                game.idle_since = None
                seen = game.epoch if game.live else -1
                conn = self._conn
            self._ensure_reader()
            if new and conn is not None:  # else the reader subscribes it when it connects
                self._send(conn, (b"SUBSCRIBE", channel))
        return Subscription(self, game, seen)

    def _ensure_reader(self) -> None:
        """Start the reader unless it runs. Callers hold the send lock, not ``_lock``:
        starting a thread waits for it to start, which under gevent switches greenlets --
        under an OS lock that stops the process. (A reader that found nothing to follow
        cleared ``_thread`` under ``_lock`` before the caller's game was added, so a
        reader that is about to end is never mistaken for a running one.)"""
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name="tabletop-live-hub", daemon=True)
            self._thread.start()

    def following(self) -> int:
        """How many games this hub is subscribed to or subscribing (for tests and metrics)."""
        with self._lock:
            return len(self._games)

    def _release(self, game: _Game) -> None:
        with self._lock:
            game.users -= 1
            if game.users == 0:
                game.idle_since = time.monotonic()

    def _send(self, conn: AbstractConnection, *commands: tuple[Any, ...]) -> None:
        """Write ``commands`` (callers hold the send lock); a failure is the reader's to notice."""
        try:
            # A connection that broke has no socket: AttributeError, caught.
            cast(socket.socket, conn._sock).sendall(b"".join(conn.pack_commands(commands)))
        except (OSError, AttributeError) as error:
            log.warning("live hub: send failed: %r", error)

    def _run(self) -> None:
        failing = False  # warn once per outage, not every ERROR_PAUSE_S
        while True:
            try:
                conn = self._connect()
                if failing:
                    log.warning("live hub: subscriber connection back")
                failing = False
                self._serve(conn)
            except Exception as error:  # noqa: BLE001 - every waiter reads for itself, then retry
                if not failing:
                    log.warning("live hub: subscriber connection failed, retrying: %r", error)
                failing = True
            self._broken()
            with self._lock:
                # Games nobody follows are not subscribed again (none is subscribed now).
                for channel in [c for c, g in self._games.items() if g.users == 0]:
                    del self._games[channel]
                if not self._games:
                    self._thread = None  # the next subscription starts a reader
                    return
            time.sleep(ERROR_PAUSE_S)

    def _connect(self) -> AbstractConnection:
        conn = cast(AbstractConnection, self._pool.make_connection())
        conn.connect()
        cast(socket.socket, conn._sock).settimeout(PING_S)
        with self._send_lock:
            with self._lock:
                self._conn = conn
                channels = list(self._games)
            if channels:
                self._send(conn, (b"SUBSCRIBE", *channels))
        return conn

    def _serve(self, conn: AbstractConnection) -> None:
        """Read ``conn``'s messages and confirmations until it breaks (raises) or nothing
        is followed any more (returns). Pings after :data:`PING_S` of silence, and lets
        go of unfollowed games every :data:`LINGER_S` however busy the connection is."""
        reader = hiredis.Reader()
        buffer = bytearray(READ_BYTES)
        sock = cast(socket.socket, conn._sock)
        pinged = False
        next_linger = time.monotonic() + LINGER_S
        while True:
            try:
                size = sock.recv_into(buffer)
            except TimeoutError:
                if pinged:
                    raise ConnectionError("the subscriber connection did not answer a ping") from None
                pinged = True
                with self._send_lock:
                    self._send(conn, (b"PING",))
            else:
                if size == 0:
                    raise ConnectionError("Redis closed the subscriber connection")
                pinged = False
                reader.feed(buffer, 0, size)  # type: ignore[arg-type]  # takes any buffer
                while (reply := reader.gets()) is not False:
                    self._handle(reply)
            if time.monotonic() >= next_linger:
                next_linger = time.monotonic() + LINGER_S
                if not self._linger(conn):
                    return

    def _linger(self, conn: AbstractConnection) -> bool:
        """Unsubscribe the games nobody followed for :data:`LINGER_S`; False when nothing
        is followed any more (the connection can go)."""
        now = time.monotonic()
        with self._send_lock:
            with self._lock:
                done = [
                    channel for channel, game in self._games.items()
                    if game.users == 0 and now - (game.idle_since or now) >= LINGER_S
                ]
                for channel in done:
                    del self._games[channel]
                empty = not self._games
            if done:
                self._send(conn, (b"UNSUBSCRIBE", *done))
        return not empty

    def _handle(self, reply: Any) -> None:
        kind = reply[0]
        if kind == b"message":
            self._deliver(reply[1], reply[2])
        elif kind == b"subscribe":
            self._confirmed(reply[1])
        # "unsubscribe" needs nothing: a game followed anew after its UNSUBSCRIBE was sent
        # is a new entry whose SUBSCRIBE went out after it (both under the send lock).

    def _confirmed(self, channel: bytes) -> None:
        with self._lock:
            game = self._games.get(channel)
            if game is None:
                return
            self._epoch += 1
            game.epoch, game.live, game.latest, game.recent = self._epoch, True, 0, []
            waiters, game.waiters = game.waiters, []
            for waiter in waiters:  # read for yourself: now every later append reaches you
                waiter._event.set()

    def _deliver(self, channel: bytes, data: bytes) -> None:
        first_text, *texts = data.split(b"\n")
        first = int(first_text)
        entries: list[Entry] = [
            (b"%d-0" % (first + i), {b"e": text}) for i, text in enumerate(texts)
        ]
        with self._lock:
            self.messages += 1
            game = self._games.get(channel)
            if game is None or not game.live:
                return
            game.take(first, entries)
            still = []
            for waiter in game.waiters:
                if waiter.after < game.latest:
                    waiter.entries = game.since(waiter.after)
                    waiter._event.set()
                else:
                    still.append(waiter)
            game.waiters = still

    def _broken(self) -> None:
        """The connection is gone: nothing is live; every waiter reads for itself."""
        with self._lock:
            conn, self._conn = self._conn, None
            for game in self._games.values():
                game.live = False
                waiters, game.waiters = game.waiters, []
                for waiter in waiters:
                    waiter._event.set()
        if conn is not None:
            conn.disconnect()


def live_hub_for(client: Any, channel_of: Callable[[str], str]) -> LiveHub | None:
    """A hub beside ``client``'s pool; None for a Redis Cluster (no pub/sub from scripts)."""
    if getattr(client, "connection_pool", None) is None or not isinstance(client, redis.Redis):
        return None
    return LiveHub(client, channel_of)
