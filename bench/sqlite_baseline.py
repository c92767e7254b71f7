"""The matched-durability baseline of ``bench.store_bench``: eventsourcing + SQLite.

The ``eventsourcing`` library's own SQLite recorder (``SQLiteAggregateRecorder``: one
row per event, primary key (originator, version), so a stale version is refused like
our expected-version check), in WAL mode with ``synchronous=FULL``: every commit is
fsynced, as every append is under Redis's ``appendfsync always``. Each command's
events are one ``insert_events`` call -- one transaction -- as they are one ``APPEND``
for us. Its fastest path: stored events are built directly (JSON state), without
aggregates or the mapper, in the timed loop (every side of ``bench.store_bench``'s
comparison encodes its events there). What it stores per event is the caller's:
``bench.store_bench`` gives it the very records our store writes (the same bytes to
fsync), and, for comparison, the engine's bare events. ImportError without the
``bench`` extra.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

from eventsourcing.persistence import StoredEvent
from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteDatastore

from bench.durable_records import Record, encode


class SqliteBaseline:
    """A SQLite event table on disk and the recorder that writes it."""

    def __init__(self, path: Path) -> None:
        self.datastore = SQLiteDatastore(str(path), originator_id_type="text", pool_size=16)
        self.recorder = SQLiteAggregateRecorder(self.datastore)
        self.recorder.create_table()
        # SQLite's default in WAL mode is FULL (an fsync per commit); read back and shown.
        with self.datastore.transaction(commit=False) as cursor:
            cursor.execute("PRAGMA journal_mode")
            self.journal_mode = cursor.fetchone()[0]
            cursor.execute("PRAGMA synchronous")
            self.synchronous = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}[cursor.fetchone()[0]]

    def rate(self, shares: Sequence[Sequence[Sequence[Record]]], tag: str) -> float:
        """Events/s for ``len(shares)`` threads, each writing its share of command
        batches (records: an event's type and the dict to store as its state) to a
        stream of its own, started together. Each record is encoded in the timed loop,
        as ours (``store.append`` encodes and seals the engine's events) and the raw
        XADD floor encode theirs."""
        barrier = threading.Barrier(len(shares) + 1)

        def work(i: int) -> None:
            originator, version = f"{tag}-{i}", 0
            barrier.wait()
            for batch in shares[i]:
                rows = []
                for type_, state in batch:
                    version += 1
                    rows.append(StoredEvent(originator, version, type_, encode(state)))
                self.recorder.insert_events(rows)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(len(shares))]
        for thread in threads:
            thread.start()
        barrier.wait()
        started = time.perf_counter()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        return sum(len(b) for share in shares for b in share) / elapsed

    def close(self) -> None:
        self.datastore.close()
