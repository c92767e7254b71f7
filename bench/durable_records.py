"""The records the matched-durability runs of ``bench.store_bench`` write: ours, sealed.

Every side of that comparison -- our store, the raw XADD floor, eventsourcing + SQLite --
stores the same record per event and encodes it in its timed loop, so all of them fsync
the same bytes: what a durable append costs depends on how much it writes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from engine.model import Event
from events.chain.batch import prepare
from events.chain.sealing import CommitKey
from events.model import records
from events.model.canonical import ZERO_HASH, canonical_json
from events.model.clock import utc_now
from events.model.envelope import seat_actor
from events.model.port import GameRef
from events.schemas import default_registry

Record = tuple[str, Mapping[str, Any]]
"""What a baseline writes per event: its type and the JSON object stored for it."""


def encode(state: Mapping[str, Any]) -> bytes:
    """A record's text as our store writes it: its canonical JSON, UTF-8."""
    return canonical_json(state).encode()


def stored_records(
    shares: Sequence[Sequence[Sequence[Event]]], game_ids: Sequence[str]
) -> list[list[list[Record]]]:
    """Per share, per command batch: the records our store writes for its events in the
    game ``game_ids[share]`` after its creation -- the envelopes
    :func:`events.chain.batch.prepare` seals (time, actor, command, the chain's hashes,
    the commitment digests) as ``WriteBench.ours`` appends them, as stored dicts. Each
    encodes (:func:`encode`) to as many bytes as the text the store writes for it; only
    the time, the hashes and the digests differ (another clock, another seed).

    Why: the matched-durability baselines write these, so every side fsyncs the same
    bytes per event. An AOF append costs more the more it writes (ext4 journals each new
    block: 150 µs per ``write`` + ``fdatasync`` of 200 bytes, 195 of 1,200 here), and an
    envelope is about 500 bytes where the engine's bare event is about 120."""
    registry = default_registry()
    out = []
    for share, game_id in zip(shares, game_ids, strict=True):
        ref = GameRef(game_id, "schlitzohr")
        key = CommitKey(records.new_seed(), ref.id)
        version, prev_hash, batches = 1, ZERO_HASH, []
        for batch in share:
            sealed = prepare(
                ref, batch, version, prev_hash, time=utc_now(), actor=seat_actor(0),
                command={"kind": "roll"}, registry=registry, keyed=False, key=key,
            ).sealed
            batches.append([(done.type, json.loads(done.text)) for done in sealed])
            version, prev_hash = sealed[-1].version, sealed[-1].hash
        out.append(batches)
    return out
