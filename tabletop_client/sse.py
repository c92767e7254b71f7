"""A Server-Sent Events parser (the HTML spec's rules, as much as the API uses).

Fields ``id``, ``event``, ``data`` (several ``data`` lines join with newlines) and
``retry``; comment lines (``: heartbeat``) are skipped; an empty line dispatches.
Chunk borders may fall anywhere, also inside a UTF-8 character.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class SseMessage:
    """One dispatched message: its ``id`` (None if the message set none), type and data."""

    id: str | None
    event: str
    data: str


def _lines(chunks: Iterable[bytes]) -> Iterator[str]:
    decoder = codecs.getincrementaldecoder("utf-8")()
    buffer = ""
    for chunk in chunks:
        buffer += decoder.decode(chunk)
        # The spec allows CRLF, LF and CR line ends (our server sends LF). A CR at the
        # end of a chunk waits for the next one: it may be the first half of a CRLF.
        held = "\r" if buffer.endswith("\r") else ""
        text = buffer[: len(buffer) - len(held)].replace("\r\n", "\n").replace("\r", "\n")
        *complete, rest = text.split("\n")
        buffer = rest + held
        yield from complete


def messages(chunks: Iterable[bytes]) -> Iterator[SseMessage]:
    """The messages of a stream, in order. A message cut off by the end of the
    stream (no closing empty line) is dropped, as the spec says: it is resent after
    a reconnect, because its id was never acknowledged."""
    event_id: str | None = None
    event = "message"
    data: list[str] = []
    for line in _lines(chunks):
        if line == "":
            if data:
                yield SseMessage(event_id, event, "\n".join(data))
            event_id, event, data = None, "message", []
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id":
            event_id = value
