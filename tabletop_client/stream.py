"""Following a game's events live: Server-Sent Events that resume by themselves.

The server sends each event with ``id:`` = its version and ends a stream after its
``sse_max_s``, or after a finished game's last event. :func:`follow` reconnects with
``Last-Event-ID`` = the last version it yielded, so the caller sees each version
once and in order, across dropped connections and server-side ends alike.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import cast

import requests

from tabletop_client.errors import RateLimited
from tabletop_client.sse import messages
from tabletop_client.transport import NETWORK_ERRORS, Transport
from tabletop_client.types import Envelope

FINAL_EVENTS = frozenset({"SeedRevealed", "GameExpired"})
"""Nothing follows these: a finished game's seed reveal, an open game's expiry."""

RECONNECT_IDLE_S = 1.0
"""The pause before reconnecting to a stream that ended without news (the server
advises ``retry: 1000``)."""


def follow(
    transport: Transport,
    pages: Callable[[int], Iterator[Envelope]],
    game_id: str,
    *,
    token: str | None = None,
    after: int = 0,
    until_end: bool = True,
    read_timeout: float = 60.0,
) -> Iterator[Envelope]:
    """The game's events after ``after``, live, each exactly once and in order.

    Reconnects with ``Last-Event-ID`` whenever the connection drops or the server
    ends the stream (it does after ``sse_max_s``); after a network error or a 429
    with backoff or ``Retry-After`` (up to ``retries`` failures in a row, then the
    error is raised).
    Duplicates are skipped and a gap (which the server never leaves) is filled
    from the events pages, so versions run ``after+1, after+2, ...`` without a
    hole. Ends after the game's final event (``SeedRevealed``, or ``GameExpired``)
    when ``until_end``; otherwise runs until the caller stops iterating.
    ``read_timeout`` must exceed the server's heartbeat interval; ``pages(after)``
    gives the events after a version from the events pages.
    """
    last = after
    failures = 0
    while True:
        before = last
        try:
            with _connect(transport, game_id, token, last, read_timeout) as response:
                for envelope in _in_order(response, last, pages):
                    yield envelope
                    last = envelope["version"]
                    failures = 0
                    if until_end and envelope["type"] in FINAL_EVENTS:
                        return
        except NETWORK_ERRORS:
            if failures >= transport.retries:
                raise
            transport.pause(failures, None)
            failures += 1
            continue
        except RateLimited as limited:
            # `too_many_streams` right after a drop: the server may not have
            # noticed yet that the old connection is gone. Wait as it says.
            if failures >= transport.retries:
                raise
            transport.pause(failures, limited.retry_after)
            failures += 1
            continue
        # The server closed the stream (its time bound): go on where we are --
        # after its advised `retry:` pause if the stream brought nothing, so a
        # server that keeps closing at once is not hammered.
        if last == before:
            time.sleep(RECONNECT_IDLE_S)


def _connect(
    transport: Transport, game_id: str, token: str | None, last: int, read_timeout: float
) -> requests.Response:
    """The game's event stream, resumed after version ``last`` (``Last-Event-ID``), or
    from the start. Raises what ``transport.request`` raises."""
    return transport.request(
        "GET",
        f"/v1/games/{game_id}/events/stream",
        token=token,
        params={"after": 0} if not last else None,
        headers={"Last-Event-ID": str(last)} if last else {},
        stream=True,
        timeout=(transport.timeout, read_timeout),
    )


def _in_order(
    response: requests.Response, last: int, pages: Callable[[int], Iterator[Envelope]]
) -> Iterator[Envelope]:
    """The stream's envelopes after version ``last``, each once and in order: what was
    delivered before a reconnect is skipped, and a gap is filled from ``pages``."""
    for message in messages(response.iter_content(chunk_size=None)):
        envelope = cast(Envelope, json.loads(message.data))
        version = envelope["version"]
        if version <= last:
            continue  # already delivered before a reconnect
        if version > last + 1:
            for missing in pages(last):
                if last < missing["version"] < version:
                    yield missing
                    last = missing["version"]
        yield envelope
        last = version
