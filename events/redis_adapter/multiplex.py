"""One connection for the store calls of every greenlet of a gevent process, written together.

Why: on the bench VM a Redis round trip costs a worker 60-70 µs of CPU, most of it in
the ``send`` that wakes Redis and the wake-up that follows its reply -- as much as
the rest of a view. Under gevent workers several requests of one process reach their
Redis call within the same turn of the event loop. :class:`Multiplexer` queues their
commands and writes them with one ``send``, one greenlet reads the replies (often
several per ``recv``) and hands each caller its own: fewer system calls and wake-ups
in the worker and in Redis alike (``python -m bench.multiplex_bench``, and
``bench.protocol_bench``; figures in ``docs/bench-rounds.md``, *Seventh round*). With
one caller at a time it costs about what a kept connection costs.

Guarantees:

- **The same replies and errors as a connection of one's own.** Each call's commands
  are written back to back and its replies are its own, in order (Redis answers a
  connection's commands in the order written); an error reply is raised to its caller
  only (after every reply of that call is read), like :meth:`Lane.execute_many`.
- **Atomic per call, not across calls.** Commands of different calls may interleave
  on the connection between calls, as they would across connections; every command
  sent here is a single-command unit (a script, a read) -- nothing here may be a
  ``MULTI`` or a blocking command (``XREAD BLOCK`` would hold every caller: the stream
  hub keeps its own connection, ``lane_for(..., blocking=True)``).
- **A broken connection fails every call on it**, written or queued, with
  ``ConnectionError`` (a reply that cannot be matched to its caller any more must not
  be matched at all); the next call opens a new connection. Callers retry under the
  pool's policy (:class:`events.redis_adapter.lane.Lane`), as redis-py would.
- **Forks**: a child never writes on its parent's socket (:meth:`forget`).

Only where gevent has patched ``socket`` (:func:`available`): the reader is a greenlet
and a caller waits by switching away; a thread would hold the GIL's other users.
"""

from __future__ import annotations

import collections
import socket
import sys
import threading
from typing import Any, cast

from redis._parsers.base import BaseParser
from redis.connection import Connection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

READ_BYTES = 65536
"""Most bytes one ``recv`` of the reader takes."""

_MORE = object()
"""hiredis's answer when the buffer holds no whole reply yet."""


def available() -> bool:
    """Whether this process runs under gevent with ``socket`` patched (an API worker)."""
    monkey = sys.modules.get("gevent.monkey")
    return monkey is not None and bool(monkey.is_module_patched("socket"))


class _Call:
    """One caller's commands: how many replies it awaits, what came, who waits."""

    __slots__ = ("count", "replies", "waiter")

    def __init__(self, count: int, waiter: Any) -> None:
        self.count = count
        self.replies: list[Any] = []
        self.waiter = waiter


class Multiplexer:
    """Calls of every greenlet on one connection of ``pool`` (see the module)."""

    def __init__(self, pool: ConnectionPool) -> None:
        import gevent
        import hiredis
        from gevent.hub import Waiter, get_hub

        self._pool = pool
        self._spawn = gevent.spawn
        self._Timeout = gevent.Timeout
        self._Waiter = Waiter
        self._get_hub = get_hub
        self._Reader = hiredis.Reader
        self._conn: Connection | None = None
        self._outbox: list[bytes] = []  # written in this order; _calls holds the callers
        self._calls: collections.deque[_Call] = collections.deque()
        self._writing = False
        # Connecting yields to other greenlets (the handshake is I/O): one at a time.
        self._connecting = threading.Lock()
        self.writes = 0
        """How many ``send`` calls wrote commands so far (tests, benches)."""
        self.calls = 0
        """How many calls were written so far."""

    def execute(self, commands: tuple[tuple[Any, ...], ...]) -> list[Any]:
        """The replies to ``commands``, in order: values as read (no response callbacks),
        or ``ResponseError`` instances for error replies. Raises ``ConnectionError``
        (or ``TimeoutError``) when the connection failed before every reply came, after
        the connection's retries (redis-py's policy: the call is sent again)."""
        if self._conn is None:
            self._connect()
        retry = self._conn.retry  # type: ignore[union-attr]
        return retry.call_with_retry(lambda: self._once(commands), lambda _: None)  # type: ignore[no-any-return]

    def _once(self, commands: tuple[tuple[Any, ...], ...]) -> list[Any]:
        if self._conn is None:
            self._connect()
        packed = self._conn.pack_commands(commands)  # type: ignore[union-attr]
        hub = self._get_hub()
        call = _Call(len(commands), self._Waiter(hub))
        idle = not self._calls  # nothing in flight: no one else is likely to come this turn
        self._outbox.extend(packed)
        self._calls.append(call)
        self.calls += 1
        if not self._writing:
            self._write(hub, wait_a_turn=not idle)
        timeout = self._conn.socket_timeout if self._conn is not None else None
        if not timeout:
            return call.waiter.get()  # type: ignore[no-any-return]
        conn = self._conn
        with self._Timeout(timeout, False):
            return call.waiter.get()  # type: ignore[no-any-return]
        # As redis-py does on a read timeout: the connection is dropped (a reply still
        # coming could not be told from the next one's), and every call on it fails.
        error = RedisTimeoutError("Timeout reading from the multiplexed Redis connection")
        self._fail(conn, error)
        raise error

    def _write(self, hub: Any, wait_a_turn: bool) -> None:
        """Write what is queued -- after one turn of the loop if other calls are in
        flight (busy: what other greenlets queue in that turn goes out with it); at once
        otherwise (a lone caller would pay the turn for nothing). One writer at a time
        (their bytes must not interleave); it writes until nothing is left."""
        self._writing = True
        conn = self._conn
        try:
            if wait_a_turn:
                turn = self._Waiter(hub)
                hub.loop.run_callback(turn.switch, None)  # what gevent.sleep(0) does
                turn.get()
            while self._outbox and conn is self._conn:
                data, self._outbox = self._outbox, []
                conn._sock.sendall(b"".join(data))  # type: ignore[union-attr]
                self.writes += 1
        except BaseException as error:  # every caller learns of it
            self._fail(conn, error)
            if not isinstance(error, Exception):
                raise  # this greenlet is being killed or timed out: it goes on doing so
        finally:
            self._writing = False

    def _connect(self) -> None:
        with self._connecting:
            if self._conn is None:
                self._open()

    def _open(self) -> None:
        conn = self._pool.get_connection()
        # Replies are read here, by one greenlet, not by redis-py's parser.
        cast(socket.socket, conn._sock).settimeout(None)
        self._conn = conn
        self._spawn(self._read, conn)

    def _read(self, conn: Connection) -> None:
        """The connection's replies, each to its caller, until it fails or is dropped."""
        # Error replies become redis-py's exception classes (NoScriptError, ...), as
        # redis-py's own hiredis parser makes them.
        reader = self._Reader(replyError=BaseParser.parse_error, notEnoughData=_MORE)
        buffer = bytearray(READ_BYTES)
        sock = cast(socket.socket, conn._sock)
        loop_of = self._get_hub().loop
        try:
            while conn is self._conn:
                size = sock.recv_into(buffer)
                if size == 0:
                    raise RedisConnectionError("Connection closed by server.")
                reader.feed(buffer, 0, size)  # type: ignore[arg-type]  # takes any buffer
                while (reply := reader.gets()) is not _MORE:
                    call = self._calls[0]
                    call.replies.append(reply)
                    if len(call.replies) == call.count:
                        self._calls.popleft()
                        loop_of.run_callback(call.waiter.switch, call.replies)
        except BaseException as error:  # noqa: BLE001 - every caller learns of it
            self._fail(conn, error)

    def _fail(self, conn: Connection | None, error: BaseException) -> None:
        """Drop ``conn`` (if still the current one) and fail every call on it."""
        if conn is None or conn is not self._conn:
            return
        self._conn = None
        calls, self._calls, self._outbox = self._calls, collections.deque(), []
        failure = error
        if not isinstance(error, (RedisConnectionError, RedisTimeoutError)):
            failure = RedisConnectionError(f"Error on the multiplexed Redis connection: {error!r}")
        loop = self._get_hub().loop
        for call in calls:
            loop.run_callback(call.waiter.throw, failure)
        try:
            conn.disconnect()
        finally:
            self._pool.release(conn)

    def forget(self) -> None:
        """In a forked child: drop the parent's connection unused (never written here)."""
        self._conn, self._calls, self._outbox, self._writing = None, collections.deque(), [], False
