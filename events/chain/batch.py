"""Preparing an append: validate a batch, seal it into the chain, build its result record.

Pure (no Redis, no clock): ``RedisEventStore`` calls :func:`prepare` and sends the
outcome to the ``APPEND`` script. Validation happens here, before anything is
sent, so the script only has to check versions and hashes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple

from engine.model import JSON, Event
from events.chain.sealing import CommitKey, Sealed, seal_encoded
from events.model.canonical import canonical_json, sha256_hex
from events.model.errors import InvalidEvent
from events.model.port import AppendResult, GameRef
from events.model.records import GAME_ENDED
from events.schemas.registry import SchemaRegistry


class PreparedBatch(NamedTuple):
    """A validated, sealed batch, and the idempotency record of it ("" when there is no
    idempotency key to store it under): see :func:`parse_record`."""

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
    registry: SchemaRegistry,
    keyed: bool,
    key: CommitKey,
) -> PreparedBatch:
    """Check and seal ``events`` as versions ``expected_version + 1``...

    ``key``: the game's commitment key (``events.chain.sealing``: seal 2). ``keyed``:
    whether the append has an idempotency key (only then is a result record built).
    Raises InvalidEvent (nothing is sent to Redis then) for an empty batch, an unknown
    type, an event failing its schema, bad metadata, or anything that is not JSON data.
    """
    if not events:
        raise InvalidEvent("-", 0, "a batch needs at least one event")
    lookup, game_type = registry.lookup, game.type
    versions: dict[str, int] = {}
    for i, event in enumerate(events):  # a loop, not a comprehension: no frame (3.11)
        versions[event.type] = lookup(game_type, event.type, i).version
    first_type = events[0].type
    try:
        actor_text, command_text = canonical_json(actor), canonical_json(command)
    except (TypeError, ValueError) as exc:
        registry.check_metadata(first_type, time, actor, command)  # names a bad field if it can
        raise InvalidEvent(first_type, 0, f"not JSON data: {exc}") from exc
    registry.check_metadata(first_type, time, actor, command, actor_text)
    try:
        sealed = seal_encoded(
            game.id,
            events,
            expected_version + 1,
            prev_hash,
            time=time,
            actor_text=actor_text,
            command_text=command_text,
            schema_version=versions.__getitem__,
            key=key,
        )
    except (TypeError, ValueError) as exc:
        raise InvalidEvent(first_type, 0, f"not JSON data: {exc}") from exc
    ended = 0
    check = registry.check
    for i, (event, done) in enumerate(zip(events, sealed, strict=True)):
        check(game_type, event, i, (done.data_text, done.private_text))
        if not ended and done.type == GAME_ENDED:
            ended = done.version
    record = ""
    if keyed:  # the fingerprint is sha256_hex(canonical_json([actor, command])), from the texts
        record = _record(sealed, sha256_hex(f"[{actor_text},{command_text}]"))
    return PreparedBatch(sealed, ended, record)


def _record(sealed: list[Sealed], request_fingerprint: str) -> str:
    """The slim idempotency record: which versions the batch wrote, the head hash after
    it, and the request's fingerprint (about 200 bytes). No answer is stored: the caller
    rebuilds a retry's answer from the stored events (``service.app.replies``)."""
    return canonical_json(
        {
            "first": sealed[0].version,
            "last": sealed[-1].version,
            "hash": sealed[-1].hash,
            "fingerprint": request_fingerprint,
        }
    )


def parse_record(game_id: str, record: str | bytes) -> tuple[AppendResult, str]:
    """The result stored for an idempotency key, and the fingerprint it was stored with.

    Records written before slim records also hold ``response``, the full answer of the
    first call: it is passed on (``AppendResult.response``), so those keys still answer."""
    raw = json.loads(record)
    result = AppendResult(
        game_id, raw["first"], raw["last"], raw["hash"], duplicate=True, response=raw.get("response")
    )
    return result, raw["fingerprint"]
