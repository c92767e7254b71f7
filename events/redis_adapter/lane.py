"""A lane to Redis for the append script and the reads: a few connections kept at hand.

Why: redis-py's ``execute_command`` checks a connection out of its pool and back in
on every call -- the deprecation wrapper around ``get_connection`` inspects its
arguments, ``getpid`` runs twice, a lock is taken twice, the in-use set changes, the
socket is read without blocking (its timeout set and reset), a release event is
dispatched. ``python -m bench.lane_bench`` (1 client, 9 interleaved rounds, the
2-core bench VM, 2026-12, lightly loaded): a PING costs 36 µs through
``execute_command`` and 24 µs on the lane; ``RedisEventStore.append`` of one event
108 µs and 78 µs (under heavier load 52 -> 31 and 157 -> 126). An append gains more
than a PING because the client's work between round trips is paid again in slower
wake-ups and colder caches on this VM.

Reads send their two commands (``XRANGE`` + ``HMGET``) as one round trip on the lane
(:meth:`Lane.execute_many`) instead of a redis-py pipeline, whose object, command stack,
checkout and per-reply callbacks cost more than the round trip's own work: 5 x 5,000
such reads under gevent cost the client 81-100 µs each against 104-132 µs, Redis the
same (44-48 µs against 43-58). In the protocol bench with ``--phases`` (2026-12-02,
two alternations at C=8) a view's or ``/legal``'s app phase came to 1.62-1.72 times
the bare request's, against 1.85-1.89 without: about 50 µs less per read.

:class:`Lane` keeps up to :data:`LANE_SIZE` of the pool's connections on a free list
of its own and runs commands on them directly, with the guarantees of
``execute_command``:

- the same replies (for EVALSHA, which has no response callback; other commands' as
  read, without redis-py's callbacks) and errors;
- a connection serves one call at a time (``list.pop``/``append`` are atomic);
- before a kept connection is reused, it is checked as the pool's checkout checks
  it (no unread data, not closed by the server), and reconnected as the pool would;
- the send and the read run under the connection's ``retry`` policy, like redis-py;
- a connection returns to the free list only after complete replies (values or error
  replies, every one of them); after anything else it goes back to the pool, which
  inspects it;
- a forked child forgets its parent's connections (it never writes on a shared
  socket), and a lane that is dropped gives its connections back to the pool.

:func:`lane_for` builds one only for a plain ``redis.Redis`` on a ``ConnectionPool``:
not a cluster, not a ``BlockingConnectionPool`` (the connections held here would count
against its bound while idle), no single-connection client, no client-side cache or
credential provider (redis-py hooks those into checkout and release), not RESP3 (whose
push messages may arrive unasked). Otherwise it returns None and callers use
``execute_command`` (reads: a pipeline).

Under gevent workers a lane's calls share one connection instead
(``events.redis_adapter.multiplex``: calls of one loop turn go out in one write), but
for a lane built with ``blocking=True`` (the stream hub's ``XREAD BLOCK``).
"""

from __future__ import annotations

import os
import select
import sys
import weakref
from typing import Any

import redis
from redis.connection import BlockingConnectionPool, Connection, ConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from events.redis_adapter import multiplex

LANE_SIZE = 16
"""Connections a lane keeps between calls, at most (one per concurrent call; more go
back to the pool). Idle, they stay open and out of the pool."""

_LANES: weakref.WeakSet[Lane] = weakref.WeakSet()


class Lane:
    """Runs commands on connections of one client's pool, kept between calls (see the
    module for why, the gain and the guarantees). Thread-safe; one per store."""

    def __init__(self, client: redis.Redis, blocking: bool = False) -> None:
        """``blocking``: its calls may block (the stream hub's ``XREAD BLOCK``), so they
        never share a connection (:mod:`events.redis_adapter.multiplex`)."""
        self._pool: ConnectionPool = client.connection_pool
        self._free: list[Connection] = []
        # Decided at the first call, in the process that makes it (an API worker patches
        # gevent in after the fork): None for kept connections of one's own.
        self._shared: multiplex.Multiplexer | None | bool = False if blocking else True
        self._poll = _unpatched_poll()
        # The finaliser holds the pool and the list, not the lane: dropping the lane
        # (with its store) gives its idle connections back to the pool.
        weakref.finalize(self, _give_back, self._pool, self._free)
        _LANES.add(self)

    def execute(self, *args: Any) -> Any:
        """The reply to the command ``args``; raises what ``execute_command`` raises.

        For commands without a response callback (EVALSHA: :func:`lane_for` checks):
        the reply is returned as read, as ``execute_command`` returns it for those."""
        shared = self._multiplexer()
        if shared is not None:
            (reply,) = shared.execute((args,))
            if isinstance(reply, ResponseError):
                raise reply
            return reply
        conn = self._checkout()
        try:
            packed = conn.pack_command(*args)
            reply = conn.retry.call_with_retry(
                lambda: _round_trip(conn, packed), lambda _: conn.disconnect()
            )
        except ResponseError:
            self._keep(conn)  # an error reply was read whole: the connection is clean
            raise
        except BaseException:
            # Disconnected by redis-py already, or mid-reply, or never used (bad
            # arguments): the pool's checkout inspects it before anyone uses it again.
            self._pool.release(conn)
            raise
        self._keep(conn)
        return reply

    def execute_many(self, *commands: tuple[Any, ...]) -> list[Any]:
        """The replies to ``commands``, sent together and read in order: one round trip,
        like a redis-py pipeline without a transaction. Replies are returned as read (no
        response callbacks: an ``XRANGE`` entry is ``[id, [field, value, ...]]``). Every
        reply is read before an error reply is raised (the first one), so the connection
        stays clean; otherwise raises what :meth:`execute` raises. Retried under the
        connection's policy as a whole, so for commands that may run twice (reads)."""
        shared = self._multiplexer()
        if shared is not None:
            replies = shared.execute(commands)
        else:
            conn = self._checkout()
            try:
                packed = conn.pack_commands(commands)
                replies = conn.retry.call_with_retry(
                    lambda: _round_trips(conn, packed, len(commands)), lambda _: conn.disconnect()
                )
            except BaseException:
                self._pool.release(conn)
                raise
            self._keep(conn)
        for reply in replies:
            if isinstance(reply, ResponseError):
                raise reply
        return replies

    def _multiplexer(self) -> multiplex.Multiplexer | None:
        """The process's shared connection, under gevent workers (see
        :mod:`events.redis_adapter.multiplex`); None: connections of one's own."""
        shared = self._shared
        if shared is True:
            shared = self._shared = multiplex.Multiplexer(self._pool) if multiplex.available() else None
        return shared or None

    def _checkout(self) -> Connection:
        """A kept connection that passed the checkout check, else one from the pool."""
        try:
            conn = self._free.pop()
        except IndexError:
            return self._pool.get_connection()  # checked by the pool itself
        # The pool's check is ``can_read()``: anything in the parser's buffer or on the
        # socket (data, or the server's close). A kept connection's buffer is empty (a
        # reply was read whole, and RESP2 sends nothing unasked), so a zero-timeout poll
        # of the socket answers the same question -- in 1 µs instead of 4 (it toggles
        # the socket's timeout twice and catches BlockingIOError).
        sock = conn._sock
        if sock is not None:
            poll = self._poll()
            poll.register(sock, select.POLLIN)
            if not poll.poll(0):
                return conn
        try:  # what ConnectionPool.get_connection does for a connection that fails it
            conn.disconnect()
            conn.connect()
            if conn.can_read():
                raise RedisConnectionError("Connection not ready")
        except BaseException:
            self._pool.release(conn)
            raise
        return conn

    def _keep(self, conn: Connection) -> None:
        if len(self._free) < LANE_SIZE:
            self._free.append(conn)
        else:
            self._pool.release(conn)


def lane_for(client: Any, blocking: bool = False) -> Lane | None:
    """A :class:`Lane` for ``client``, or None where it does not apply (see the module).
    ``blocking``: for calls that may block (never multiplexed)."""
    if type(client) is not redis.Redis or client.connection is not None:
        return None
    if client.response_callbacks.get("EVALSHA") is not None:
        return None
    pool = client.connection_pool
    if not isinstance(pool, ConnectionPool) or isinstance(pool, BlockingConnectionPool):
        return None
    if getattr(pool, "cache", None) is not None:
        return None
    kwargs = pool.connection_kwargs
    if kwargs.get("credential_provider") is not None or kwargs.get("protocol") in (3, "3"):
        return None
    return Lane(client, blocking)


def _unpatched_poll() -> Any:
    """``select.poll`` as the OS has it. gevent's monkey-patched one (API workers) is a
    cooperative wrapper that made a lane call slower than ``execute_command``
    (54 µs against 49); a zero-timeout poll never blocks, so the original is safe."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None:
        return monkey.get_original("select", "poll")
    return select.poll


def _round_trip(conn: Connection, packed: Any) -> Any:
    conn.send_packed_command(packed)
    return conn.read_response()


def _round_trips(conn: Connection, packed: Any, count: int) -> list[Any]:
    conn.send_packed_command(packed)
    replies: list[Any] = []
    for _ in range(count):
        try:
            replies.append(conn.read_response())
        except ResponseError as error:  # read whole: the next reply follows
            replies.append(error)
    return replies


def _give_back(pool: ConnectionPool, free: list[Connection]) -> None:
    while free:
        try:
            pool.release(free.pop())
        except Exception:  # noqa: BLE001 - at interpreter exit the pool may be gone
            return


def _forget_in_child() -> None:
    # The parent's sockets are shared with this child: drop them unused (redis-py's
    # ``disconnect`` then only closes the child's descriptors) -- cleared in place, so
    # the finalisers give nothing of the parent's to the child's pool.
    for lane in list(_LANES):
        lane._free.clear()
        if isinstance(lane._shared, multiplex.Multiplexer):
            lane._shared.forget()


os.register_at_fork(after_in_child=_forget_in_child)
