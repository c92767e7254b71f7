"""The matched-durability baselines write the very records our store writes.

``bench.store_bench`` compares our durable append with eventsourcing + SQLite and with
raw XADDs, all fsyncing every write; what an fsync'd append costs depends on how many
bytes it writes. So the baselines are handed ``bench.durable_records.stored_records``:
were those records shorter than what the store writes, or different in content, the
comparison would measure less work on their side than on ours (or the reverse).
"""

from __future__ import annotations

import itertools
import json

import redis

from bench.durable_records import encode, stored_records
from bench.store_bench import WriteBench, sample_batches

VARYING = frozenset({"time", "hash", "prev_hash", "command_digest", "private_digest"})
"""What depends on the clock or the game's secret seed (another seed, another chain)."""


def test_the_baselines_records_are_what_the_store_writes_byte_for_byte_in_length(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    batches = sample_batches(120)
    bench = WriteBench(redis_client, key_prefix, batches, clients=2)
    records = stored_records(bench.shares, [game.id for game in bench.games])
    for i in range(2):
        bench.ours(i)
        texts = bench.store.stored_texts(bench.games[i].id)[1:]  # after the GameCreated
        ours = [json.loads(text) for text in texts]
        theirs = [state for batch in records[i] for _, state in batch]
        assert [len(b) for b in records[i]] == [len(b) for b in bench.shares[i]]
        assert len(theirs) == len(ours) > 0
        for text, mine, record in zip(texts, ours, theirs, strict=True):
            assert len(encode(record)) == len(text.encode())
            assert mine.keys() == record.keys()
            assert {k: v for k, v in mine.items() if k not in VARYING} == {
                k: v for k, v in record.items() if k not in VARYING
            }
        # The records chain like the store's: each continues the one before it.
        assert all(b["prev_hash"] == a["hash"] for a, b in itertools.pairwise(theirs))
