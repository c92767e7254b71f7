"""Server-Sent Events: a game's events as one viewer may see them, gap-free and resumable.

Wire format per event (https://html.spec.whatwg.org/multipage/server-sent-events.html)::

    id: <version>
    event: <event type>
    data: <the redacted envelope as JSON, one line>

Guarantees:

- Events arrive in version order, each exactly once per stream, starting right
  after the version the client names (``Last-Event-ID`` or ``?after=``). A client
  that reconnects with the last ``id`` it saw misses nothing and sees nothing twice.
- Each event is redacted for the stream's viewer by the store's read path
  (``events.model.redaction``), with the finished flag read after the events -- so an
  event is shown in full only if the game had ended when it was sent.
- The stream is bounded: it ends after ``max_s`` seconds, or once the game is over
  (finished, or expired) and everything up to its last event was sent. Idle periods are broken by
  a comment line every ``heartbeat_s`` so proxies keep the connection and a gone
  client is noticed (the next write fails and the generator is closed).

Waiting: with ``wait`` given (a :class:`service.http.live.Subscription` of the process's
live hub, taken before the stream's first read), an idle stream holds no Redis
connection: it reads without blocking and parks until its game moves on. The hub hands
over the events the append published, which the store decodes and redaction serves
(``RedisEventReader.stored_of``, ``events.model.redaction.served_form``): a live event
costs the stream no read of its own.
Its finished flag then comes from the events themselves (a ``GameEnded`` streamed so
far, or the head read at the start), so an event is still shown in full only if the
game had ended by the end of its batch. Without ``wait``, each open stream holds a Redis
connection blocked in ``XREAD BLOCK`` (a Redis Cluster, unit tests). Under gevent
workers (the default, ``service.runner.server``) a parked stream costs no worker thread
either.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NamedTuple

from engine.table import FINAL_TYPES, SEAT_LEFT, SEAT_TOKEN_REISSUED
from engine.table import GAME_STARTED as PLAY_STARTED
from events.model.envelope import Envelope
from events.model.port import Head
from events.model.records import GAME_ENDED
from events.model.redaction import SPECTATOR, Viewer, served_form
from events.redis_adapter.decode import Entry
from events.redis_adapter.reader import RedisEventReader
from service.app.documents import encode

Wait = Callable[[int, float], "list[Entry] | None"]
"""``wait(after, timeout_s)``: parks until the game's stream may hold entries after
``after`` -- answering those the waker had ([] when it had none: read them yourself) --
or the timeout passes (None). ``Subscription.wait_entries``."""

BATCH = 100
"""Most events one XREAD returns."""

RETRY_MS = 1000
"""Reconnection delay the stream suggests to EventSource clients."""



class Message(NamedTuple):
    """One event as the stream sends it: its version, its type and its SSE text; for an
    event that changes who holds a seat (``SeatLeft``, ``SeatTokenReissued``) its seat."""

    version: int
    type: str
    text: str
    seat: int | None = None


SEAT_CHANGES = frozenset({SEAT_LEFT, SEAT_TOKEN_REISSUED})
"""Event types after which a seat's stream may no longer be its holder's."""


class SeatWatch:
    """What a seat's stream may show as its events go by, and when it must end.

    The stream was opened with a credential seen to hold ``seat`` at version
    ``checked_at`` (the stream starts at or before it: ``service.http.stream_access``),
    so every later event that changes the seat's holder passes through it, in order:

    - until play begins (``PlayStarted``) the stream shows what a spectator sees: the
      seat may still change hands (``Table.seats_settled``); from the next event on,
      the seat's own;
    - a later ``SeatLeft`` of the seat ends it (the next holder's facts are not its);
    - with ``by_token`` (opened with the seat's token, or a ticket that token got) a
      later ``SeatTokenReissued`` of the seat ends it: that token is void;
    - ``still_valid`` (a player key, or a ticket it got: the key not replaced since)
      is asked before each batch is sent; False ends the stream.

    Each of these events is sent (all are public) and nothing after it."""

    def __init__(
        self,
        seat: int,
        checked_at: int,
        settled: bool,
        by_token: bool,
        still_valid: Callable[[], bool] | None = None,
    ) -> None:
        self.seat = seat
        self.checked_at = checked_at
        self.settled = settled
        self.by_token = by_token
        self.still_valid = still_valid

    @property
    def viewer(self) -> Viewer:
        return self.seat if self.settled else SPECTATOR

    def admit(self, batch: list[Message]) -> tuple[list[Message], bool] | None:
        """What of ``batch`` the stream may send (:meth:`cut`), or None: ``still_valid``
        says its credential is gone, and the stream ends without sending it."""
        if self.still_valid is not None and not self.still_valid():
            return None
        return self.cut(batch)

    def cut(self, batch: list[Message]) -> tuple[list[Message], bool]:
        """``batch`` up to and including the first event that changes what this stream
        may show, and whether the stream ends after it."""
        for i, message in enumerate(batch):
            if message.version <= self.checked_at:
                continue
            if message.type == PLAY_STARTED and not self.settled:
                self.settled = True
                return batch[: i + 1], False
            if message.seat == self.seat and (
                message.type == SEAT_LEFT or (self.by_token and message.type == SEAT_TOKEN_REISSUED)
            ):
                return batch[: i + 1], True
        return batch, False


def _handed_over(
    store: RedisEventReader, entries: list[Entry], viewer: Viewer, ended: bool
) -> list[Message]:
    """Entries the hub read, as ``viewer`` may see them; ``ended``: whether the game had
    ended by the last event sent. A ``GameEnded`` among them ends it too (as the head
    read after them would say), so the batch holding it is shown in full like any after
    the end. Served from the stored dicts (``served_form``): the same text as
    :func:`_messages` makes of the envelopes a read returns, at a fraction of the CPU."""
    stored = store.stored_of(entries)
    finished = ended or any(raw["type"] == GAME_ENDED for raw in stored)
    return [
        _message(raw["version"], raw["type"], served_form(raw, viewer, finished), raw["data"])
        for raw in stored
    ]


def _messages(batch: list[Envelope]) -> list[Message]:
    """Envelopes a read returned (already redacted for the stream's viewer) as messages."""
    return [_message(e.version, e.type, e.to_json(), e.data) for e in batch]


def _message(version: int, type_: str, served: object, data: Mapping[str, Any]) -> Message:
    """One SSE message for the served form of an event: its JSON as every answer is
    written (``service.app.documents.encode``: compact, UTF-8 as is), which never holds a
    raw newline. ``data``: the event's public data (for the seat of a seat change)."""
    text = f"id: {version}\nevent: {type_}\ndata: {encode(served)}\n\n"
    return Message(version, type_, text, data["seat"] if type_ in SEAT_CHANGES else None)


def _over(store: RedisEventReader, game_id: str, head: Head, viewer: Viewer) -> bool:
    """Whether nothing can follow ``head``: the game finished, or its last event is a
    final one (an expiry: the head does not say so). Asked only of a stream opened at
    the head -- one read of the last event, which a stream that has events to send
    would read anyway -- so a client that reconnects to an expired game at its last
    version is answered at once instead of waiting out ``sse_max_s``."""
    if head.finished:
        return True
    if head.version == 0:
        return False
    last = store.tail(game_id, head.version - 1, viewer, block_ms=0, count=1)
    return bool(last) and last[-1].type in FINAL_TYPES


def _ends(batch: list[Message]) -> bool:
    return any(m.type == GAME_ENDED for m in batch)


def event_stream(
    store: RedisEventReader,
    game_id: str,
    viewer: Viewer,
    after: int,
    max_s: float,
    heartbeat_s: float,
    clock: Callable[[], float] = time.monotonic,
    wait: Wait | None = None,
    watch: SeatWatch | None = None,
) -> Iterator[str]:
    """The SSE text of ``game_id``'s events after version ``after`` for ``viewer``.

    ``wait``: see :data:`Wait`; None: block in ``XREAD`` instead. ``watch``: for a seat's
    stream, what it may show as play begins and when it ends (:class:`SeatWatch`; its
    viewer then replaces ``viewer``)."""
    if watch is not None:
        viewer = watch.viewer
    deadline = clock() + max_s
    yield f"retry: {RETRY_MS}\n\n"
    head = store.head(game_id)
    if after >= head.version and _over(store, game_id, head, viewer):
        return
    ended = head.finished  # whether the game had ended by the last event sent
    read = True  # whether the stream may hold events after ``after`` that were not read
    while (remaining := deadline - clock()) > 0:
        idle_s = min(heartbeat_s, remaining)
        if wait is None:
            block_ms = max(1, int(idle_s * 1000))
            batch = _messages(store.tail(game_id, after, viewer, block_ms=block_ms, count=BATCH))
        else:
            read_now = store.tail(game_id, after, viewer, block_ms=0, count=BATCH) if read else []
            batch = _messages(read_now)
            if not batch:
                # Parked: entries when something was appended ([] spuriously, e.g. after
                # a Redis error: read then). None is reliable (service.http.live's
                # guarantees), so a quiet heartbeat costs no Redis read.
                delivered = wait(after, idle_s)
                read = delivered == []
                if read:
                    continue
                if delivered:
                    batch = _handed_over(store, delivered, viewer, ended)
        if not batch:
            yield ": heartbeat\n\n"
            continue
        stop = False
        # Only a full batch may leave more behind; after a shorter one the hub says
        # when there is more (it reads from ``after``), which spares an empty read per batch.
        read = len(batch) >= BATCH
        if watch is not None:
            admitted = watch.admit(batch)
            if admitted is None:
                return  # its player key was replaced
            # Cut short, or now shown as the seat: what follows is read again, as it may be seen.
            read = read or len(admitted[0]) < len(batch)
            (batch, stop), viewer = admitted, watch.viewer
        ended = ended or _ends(batch)
        # Few chunks per batch: the server writes each chunk with its own send.
        yield from _chunks(message.text for message in batch)
        after = batch[-1].version
        if stop or batch[-1].type in FINAL_TYPES:  # an expired game's stream ends too
            return


CHUNK_BYTES = 2048
"""The most text one write joins (an event longer than this goes alone). A live batch is
a few events, so it is one write; a catch-up of a long history is many bounded ones: an
HTTP client loses a chunk cut short whole, so one huge chunk would let a connection that
drops every few KB never make progress (tests/e2e/test_client.py cuts at 3 KB)."""


def _chunks(messages: Iterable[str]) -> Iterator[str]:
    """``messages`` joined into texts of at most :data:`CHUNK_BYTES` characters each."""
    pending: list[str] = []
    size = 0
    for message in messages:
        if pending and size + len(message) > CHUNK_BYTES:
            yield "".join(pending)
            pending, size = [], 0
        pending.append(message)
        size += len(message)
    if pending:
        yield "".join(pending)
