"""A minimal Server-Sent Events reader for tests (the parsing rules of the HTML spec
that our server uses: ``id``, ``event``, ``data``, ``retry`` fields and comments)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SseEvent:
    id: int
    type: str
    data: dict[str, Any]


def lines(chunks: Iterable[bytes | str]) -> Iterator[str]:
    """Text lines from a stream of byte chunks (chunk borders may fall anywhere)."""
    buffer = ""
    for chunk in chunks:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n" in buffer:
            line, buffer = buffer.split("\n", 1)
            yield line


def events(chunks: Iterable[bytes | str], comments: list[str] | None = None) -> Iterator[SseEvent]:
    """The events of a stream; comment lines are appended to ``comments`` if given."""
    fields: dict[str, str] = {}
    for line in lines(chunks):
        if line == "":
            if "data" in fields:
                yield SseEvent(int(fields["id"]), fields["event"], json.loads(fields["data"]))
            fields = {}
        elif line.startswith(":"):
            if comments is not None:
                comments.append(line)
        else:
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
