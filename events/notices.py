"""Append notices: each append's events, pushed over Redis pub/sub to whoever listens.

Why: API processes keep tables in memory (``service.app.tables``). With several
worker processes, the process that gets a game's next command has often not seen
the last one, and would first have to read the missing events -- one more Redis
round trip on the command path, and the costliest part of a command under gunicorn's
sync workers. With notices, the ``APPEND`` script PUBLISHes the batch it stored (in
the append's own round trip), and a listener thread in every process folds it into
that process's cache before the game's next command arrives.

Guarantees: none beyond "usually, and fast". Pub/sub delivers at most once; a
listener that is reconnecting misses notices; a process may start listening after a
game began. Consumers treat a notice as a hint that must continue exactly what they
hold (``first`` = their version + 1) and ignore it otherwise: the store stays the
only source of truth, and its expected-version check makes a stale cache cost a
read, never a wrong event. Notices are published on a standalone Redis only (like
the feed; see ``RedisEventStore``).

Hidden information: a notice holds the stored events, private parts included, like
the streams themselves. It is internal traffic between the store and the service's
own processes -- never forwarded to a client (clients read through redaction).

Channel and format (``events/keys.py``): channel ``<p>appends``; message
``<game id> <first version>\\n<envelope JSON>\\n<envelope JSON>...`` -- canonical
JSON has no raw newline, so the texts need no further framing.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from events.envelope import Envelope
from events.keys import prefixed
from events.upcasting import Upcasters

log = logging.getLogger(__name__)

Consumer = Callable[[str, list[Envelope]], None]
"""Called with a game id and the envelopes of one append, in version order."""

RETRY_S = (0.1, 0.5, 2.0)
"""Pauses before resubscribing after a lost connection (the last one repeats)."""


def channel(prefix: str) -> str:
    """The pub/sub channel of a deployment's append notices."""
    return prefixed(prefix, "appends")


def parse(message: bytes | str, upcasters: Upcasters) -> tuple[str, list[Envelope]]:
    """The game id and envelopes (upcast, not redacted) of one notice.
    ValueError (or KeyError/TypeError) for a message that is not one."""
    text = message.decode() if isinstance(message, bytes) else message
    header, *texts = text.split("\n")
    game_id, first = header.split(" ")
    envelopes = [Envelope.from_stored(upcasters.upcast(json.loads(t))) for t in texts]
    if not envelopes or any(e.version != int(first) + i for i, e in enumerate(envelopes)):
        raise ValueError(f"notice for {game_id!r} is not a batch from version {first}")
    return game_id, envelopes


class NoticeListener:
    """A daemon thread that passes every notice on ``channel(prefix)`` to ``consumer``.

    :meth:`ensure_running` starts it lazily and again after a fork (a thread does not
    survive one: gunicorn builds the app before forking its workers). A broken
    connection is retried forever with ``RETRY_S`` pauses; a malformed notice or a
    failing consumer is logged and skipped. Thread-safe.
    """

    def __init__(self, client: Any, prefix: str, upcasters: Upcasters, consumer: Consumer) -> None:
        self._client = client
        self._channel = channel(prefix)
        self._upcasters = upcasters
        self._consumer = consumer
        self._lock = threading.Lock()
        self._pid = 0
        self._stop = threading.Event()
        self.subscribed = threading.Event()
        """Set while subscribed (tests wait for it before publishing)."""

    def ensure_running(self) -> None:
        """Start the thread unless this process runs it already (cheap when it does)."""
        if self._pid == os.getpid():
            return
        with self._lock:
            if self._pid == os.getpid():
                return
            self._stop.clear()
            self.subscribed.clear()
            threading.Thread(target=self._run, name="append-notices", daemon=True).start()
            self._pid = os.getpid()

    def stop(self) -> None:
        """Ask the thread to end (it does within a second); for tests and shutdown."""
        self._stop.set()

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                self._listen()
                failures = 0
            except Exception:  # a lost connection: the caches fall back to reads meanwhile
                self.subscribed.clear()
                log.warning("append notices: connection lost; resubscribing", exc_info=True)
                self._stop.wait(RETRY_S[min(failures, len(RETRY_S) - 1)])
                failures += 1

    def _listen(self) -> None:
        pubsub = self._client.pubsub()
        try:
            pubsub.subscribe(self._channel)
            while not self._stop.is_set():
                message = pubsub.get_message(timeout=1.0)
                if message is None:
                    continue
                if message["type"] == "subscribe":  # Redis confirmed: notices flow from here on
                    self.subscribed.set()
                elif message["type"] == "message":
                    self._deliver(message["data"])
        finally:
            pubsub.close()

    def _deliver(self, data: bytes | str) -> None:
        try:
            game_id, envelopes = parse(data, self._upcasters)
            self._consumer(game_id, envelopes)
        except Exception:
            log.exception("append notices: skipped a notice")
