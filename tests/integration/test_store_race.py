"""Many writers on one game: optimistic concurrency under real contention.

16 threads each send 300 commands to the same game, the way the application
layer does: decide on the state they hold, append with that version, and on a
conflict catch up from the store and try again (same idempotency key).
"""

from __future__ import annotations

import threading

import pytest
from support.counter import counted, counter_game, counter_store, created, fold

from events.model import records
from events.model.envelope import SYSTEM, seat_actor
from events.model.errors import VersionConflict
from events.model.port import GameRef
from events.model.redaction import ADMIN
from events.redis_adapter.store import RedisEventStore

THREADS = 16
COMMANDS = 300
State = tuple[tuple[int, int], ...]
"""The counter state: every (seat, n) in version order."""


class Writer:
    """One client: its own store (like a separate API process), version and state."""

    def __init__(self, store: RedisEventStore, ref: GameRef, seat: int) -> None:
        self.store = counter_store(store._redis, store.prefix)
        self.ref, self.seat = ref, seat
        self.version, self.state, self.conflicts = 1, State(), 0

    def send(self, n: int) -> None:
        """Command ``n``: append on the state held, catching up after each conflict."""
        while True:
            try:
                result = self.store.append(
                    self.ref,
                    [counted(self.seat, n)],
                    self.version,
                    f"s{self.seat}-c{n}",
                    actor=seat_actor(self.seat),
                    command={"kind": "count", "n": n},
                )
                self.version, self.state = result.last_version, (*self.state, (self.seat, n))
                return
            except VersionConflict:
                self.conflicts += 1
                news = self.store.read_range(self.ref.id, ADMIN, self.version + 1)
                self.version, self.state = news[-1].version, self.state + fold(news)


@pytest.mark.store
def test_many_writers_one_game(store: RedisEventStore) -> None:
    ref, seed = counter_game("race"), records.new_seed()
    store.create(ref, [created(seed)], seed, actor=SYSTEM)
    writers = [Writer(store, ref, seat) for seat in range(THREADS)]
    barrier = threading.Barrier(THREADS)

    def run(writer: Writer) -> None:
        barrier.wait()
        for n in range(COMMANDS):
            writer.send(n)

    threads = [threading.Thread(target=run, args=(w,)) for w in writers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    history = store.read_all(ref.id, ADMIN)
    assert [e.version for e in history] == list(range(1, THREADS * COMMANDS + 2))
    replayed = fold(history)
    assert sorted(replayed) == sorted((s, n) for s in range(THREADS) for n in range(COMMANDS))
    assert store.verify(ref.id) == THREADS * COMMANDS + 1
    last = max(writers, key=lambda w: w.version)
    assert last.version == THREADS * COMMANDS + 1 and last.state == replayed
    for w in writers:  # every writer's view is a prefix of the truth
        assert w.state == replayed[: len(w.state)] and len(w.state) == w.version - 1
    assert sum(w.conflicts for w in writers) > 0, "the threads never actually raced"
