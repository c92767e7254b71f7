"""Preparing an append: validate a batch, seal it into the chain, build its result record.

Pure (no Redis, no clock): ``RedisEventStore`` calls :func:`prepare` and sends the
outcome to the ``APPEND`` script. Validation happens here, before anything is
sent, so the script only has to check versions and hashes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from engine.model import JSON, Event
from events.canonical import canonical_json, sha256_hex
from events.errors import InvalidEvent
from events.port import AppendResult, GameRef
from events.records import GAME_ENDED
from events.schemas.registry import SchemaRegistry
from events.sealing import Sealed, seal


@dataclass(frozen=True, slots=True)
class PreparedBatch:
    """A validated, sealed batch, and the record a retry of it will be answered with
    ("" when there is no idempotency key to store it under)."""

    sealed: list[Sealed]
    ended_at: int
    record: str

    @property
    def last_hash(self) -> str:
        return self.sealed[-1].hash


def fingerprint(actor: JSON, command: JSON | None) -> str:
    """Identifies a request for idempotency: the same key must come with the same one."""
    return sha256_hex(canonical_json([actor, command]))


def prepare(
    game: GameRef,
    events: Sequence[Event],
    expected_version: int,
    prev_hash: str,
    *,
    time: str,
    actor: JSON,
    command: JSON | None,
    response: str | None,
    registry: SchemaRegistry,
    keyed: bool,
) -> PreparedBatch:
    """Check and seal ``events`` as versions ``expected_version + 1``...

    ``keyed``: whether the append has an idempotency key (only then is a result
    record built). Raises InvalidEvent (nothing is sent to Redis then) for an empty
    batch, an unknown type, an event failing its schema, bad metadata, or anything
    that is not JSON data.
    """
    if not events:
        raise InvalidEvent("-", 0, "a batch needs at least one event")
    versions = {e.type: registry.lookup(game.type, e.type, i).version for i, e in enumerate(events)}
    registry.check_metadata(events[0].type, time, actor, command)
    try:
        sealed = seal(
            game.id,
            events,
            expected_version + 1,
            prev_hash,
            time=time,
            actor=actor,
            command=command,
            schema_version=versions.__getitem__,
        )
    except (TypeError, ValueError) as exc:
        raise InvalidEvent(events[0].type, 0, f"not JSON data: {exc}") from exc
    for i, (event, done) in enumerate(zip(events, sealed, strict=True)):
        registry.check(game.type, event, i, (done.data_text, done.private_text))
    ended = [s.version for s in sealed if s.type == GAME_ENDED]
    record = _record(sealed, actor, command, response) if keyed else ""
    return PreparedBatch(sealed, ended[0] if ended else 0, record)


def _record(sealed: list[Sealed], actor: JSON, command: JSON | None, response: str | None) -> str:
    return canonical_json(
        {
            "first": sealed[0].version,
            "last": sealed[-1].version,
            "hash": sealed[-1].hash,
            "fingerprint": fingerprint(actor, command),
            "response": response,
        }
    )


def parse_record(game_id: str, record: str | bytes) -> tuple[AppendResult, str]:
    """The result stored for an idempotency key, and the fingerprint it was stored with."""
    raw = json.loads(record)
    result = AppendResult(
        game_id, raw["first"], raw["last"], raw["hash"], duplicate=True, response=raw["response"]
    )
    return result, raw["fingerprint"]
