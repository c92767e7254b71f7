"""Sealing: turning a batch of engine events into stored, hash-chained envelope text.

Pure (time, actor and command are arguments). Guarantees: versions are
consecutive from ``first_version``; each event's ``prev_hash`` is the previous
event's ``hash`` (the batch's first one is the ``prev_hash`` argument); ``text``
equals ``canonical_json`` of the stored form and ``hash`` is SHA-256 of the
canonical form without ``hash`` (``tests/integration/test_store_pure.py`` checks
both against the straightforward definition).

Why not just ``canonical_json(body)`` twice: appends are the hot write path. The
envelope's keys are fixed, so the canonical text is assembled from canonical
pieces in sorted key order -- the batch-wide pieces (actor, command, game id,
time) are encoded once per batch and each event's text is encoded only once.
:func:`seal_encoded` takes the actor and command already encoded (``events.batch``
needs those texts for its checks as well).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from engine.model import JSON, Event
from events.canonical import canonical_json, sha256_hex


class Sealed(NamedTuple):
    """One event ready to store: its version, type, canonical text and hash.

    ``data_text`` and ``private_text`` are the canonical JSON of its two parts
    (``"null"`` for no private part): the schema check memoises on them. (A named
    tuple, not a frozen dataclass: as immutable, and several times cheaper to build
    on the append hot path.)
    """

    version: int
    type: str
    text: str
    hash: str
    data_text: str
    private_text: str


def seal(
    game_id: str,
    events: Sequence[Event],
    first_version: int,
    prev_hash: str,
    *,
    time: str,
    actor: JSON,
    command: JSON | None,
    schema_version: Callable[[str], int],
) -> list[Sealed]:
    """Envelopes for ``events`` at versions ``first_version``, ``first_version + 1``, ...

    ``schema_version(type)`` gives each type's current schema version. The caller
    has validated ``game_id`` (``keys.GAME_ID``), ``time`` (ISO-8601) and the event
    types (registered CamelCase names); ``prev_hash`` is hex. Raises
    TypeError/ValueError if anything else is not JSON data (a non-dict mapping included).
    """
    return seal_encoded(
        game_id,
        events,
        first_version,
        prev_hash,
        time=time,
        actor_text=canonical_json(actor),
        command_text=canonical_json(command),
        schema_version=schema_version,
    )


def seal_encoded(
    game_id: str,
    events: Sequence[Event],
    first_version: int,
    prev_hash: str,
    *,
    time: str,
    actor_text: str,
    command_text: str,
    schema_version: Callable[[str], int],
) -> list[Sealed]:
    """:func:`seal` with the actor and command given as their canonical JSON texts."""
    # Keys in sorted order: actor command data game_id [hash] prev_hash private
    # schema_version time type version visible_to. Game ids, hashes, times and type
    # names never need JSON escapes (their formats are validated before sealing), so
    # they are quoted directly; everything else goes through the canonical encoder.
    head = f'{{"actor":{actor_text},"command":{command_text},"data":'
    game_part = f',"game_id":"{game_id}"'
    time_part = f',"time":"{time}"'
    out: list[Sealed] = []
    version = first_version
    for event in events:
        data = canonical_json(event.data)
        if event.private is None:
            private, visible = "null", "[]"
        else:
            private, visible = canonical_json(event.private), canonical_json(list(event.visible_to))
        rest = (
            f',"prev_hash":"{prev_hash}","private":{private}'
            f',"schema_version":{schema_version(event.type)}{time_part}'
            f',"type":"{event.type}","version":{version},"visible_to":{visible}}}'
        )
        prefix = head + data + game_part
        prev_hash = sha256_hex(prefix + rest)
        text = f'{prefix},"hash":"{prev_hash}"{rest}'
        out.append(Sealed(version, event.type, text, prev_hash, data, private))
        version += 1
    return out
