"""Recent appends, shared by the worker processes of one server on one host.

Why: a server runs several worker processes, each with its own table cache. When
consecutive commands of one game land on different processes (gunicorn's ``sync``
workers close every connection, so they usually do), the second process must first
read what the first appended -- an XRANGE round trip and a decode. This board lets
the appending process leave its batch in memory the processes share, so the next
one catches up without asking Redis.

What it holds: per slot (a game id hashes to one slot), one game's most recent
*contiguous* run of events, as the exact canonical texts the store appended, with
the versions of its first and last. A later batch of the same game that continues
the run is added at its end; when the slot is full the oldest events are dropped,
down to half a slot, so that the next few batches are cheap appends again. Any
other batch replaces the slot.

Guarantees:

- It only ever holds events the store acknowledged (``post`` is called after the
  ``APPEND`` script answered "ok"), so what :meth:`RecentAppends.since` returns is
  part of the game's history, in order and without gaps. It may be *behind* the
  store -- callers needing the head must still read Redis.
- It never blocks: every operation takes its slot's lock without waiting; if the
  lock is busy (or was left held by a process that died) the read is a miss and the
  post is skipped. A miss only costs the Redis read it would have saved.
- Keys are ``prefix + game id``, so one board can serve stores with different key
  prefixes. It must be shared only by processes that use the same Redis database.

The memory is an anonymous shared ``mmap`` and the locks are ``multiprocessing``
semaphores, both created by :meth:`RecentAppends.create` *before* the server forks
its workers (processes forked afterwards share them; nothing is left behind in
``/dev/shm`` when they exit). It holds hidden facts, like every server-side cache:
it lives only in the server's own memory.
"""

from __future__ import annotations

import mmap
import multiprocessing
import struct
import zlib
from collections.abc import Sequence
from typing import Any

DEFAULT_SLOTS = 1024
"""Games the board holds at once (a game id hashes to a slot; a collision replaces)."""

DEFAULT_SLOT_BYTES = 16 * 1024
"""Bytes per slot, header included: a few commands' worth of events of one game."""

LOCK_STRIPES = 64
"""Slots share this many locks (slot number modulo the stripe count)."""

_HEADER = struct.Struct("<IIIB")
"""Slot header: first and last version held, length of the texts, length of the key
(0: the slot is empty)."""
_KEY_BYTES = 100  # a prefix (short, by convention) + a game id (at most 64 characters)
_SEPARATOR = b"\n"  # canonical JSON is compact: it never holds a raw newline


class RecentAppends:
    """A fixed-size board of recent appends shared across forked processes."""

    def __init__(self, memory: Any, locks: Sequence[Any], slots: int, slot_bytes: int) -> None:
        """Use :meth:`create`; this wraps memory and locks made before a fork."""
        self._memory = memory
        self._locks = locks
        self._slots = slots
        self._slot_bytes = slot_bytes
        self._room = slot_bytes - _HEADER.size - _KEY_BYTES

    @property
    def room(self) -> int:
        """Bytes of event texts (with one separator between each two) a slot holds."""
        return self._room

    @classmethod
    def create(cls, slots: int = DEFAULT_SLOTS, slot_bytes: int = DEFAULT_SLOT_BYTES) -> RecentAppends:
        """A new, empty board. Create it in the parent, before forking the processes
        that share it. ValueError for a size too small to hold anything."""
        if slots < 1 or slot_bytes < _HEADER.size + _KEY_BYTES + 64:
            raise ValueError(f"a board needs slots >= 1 and slot_bytes >= {_HEADER.size + _KEY_BYTES + 64}")
        memory = mmap.mmap(-1, slots * slot_bytes)  # anonymous and MAP_SHARED: shared after fork
        stripes = min(slots, LOCK_STRIPES)
        locks = [multiprocessing.Lock() for _ in range(stripes)]
        return cls(memory, locks, slots, slot_bytes)

    def post(self, key: str, first_version: int, texts: Sequence[str]) -> None:
        """Record that ``texts`` were appended as versions ``first_version``... of the
        game ``key``. Call only after the store acknowledged them. Never raises for a
        batch too big (the slot is then emptied) or a busy lock (then nothing happens)."""
        encoded_key = key.encode()
        if len(encoded_key) > _KEY_BYTES or not texts:
            return
        added = _SEPARATOR.join(text.encode() for text in texts)
        last_version = first_version + len(texts) - 1
        slot, lock = self._slot_of(encoded_key)
        if not lock.acquire(False):
            return
        try:
            start = slot * self._slot_bytes
            first, last, length, key_length = _HEADER.unpack_from(self._memory, start)
            body_at = start + _HEADER.size + _KEY_BYTES
            continues = length and last + 1 == first_version and self._holds(start, key_length, encoded_key)
            if continues and length + 1 + len(added) <= self._room:
                # The common case: the run grows at its end; nothing else is copied.
                end = body_at + length
                self._memory[end : end + 1 + len(added)] = _SEPARATOR + added
                _HEADER.pack_into(self._memory, start, first, last_version, length + 1 + len(added), key_length)
                return
            body = self._memory[body_at : body_at + length] + _SEPARATOR + added if continues else added
            if not continues:
                first = first_version
            # Keep at most half the room, so the next few batches are cheap appends again.
            excess = len(body) - (self._room // 2 if len(added) <= self._room // 2 else self._room)
            if excess > 0:
                cut = body.find(_SEPARATOR, excess - 1)
                if cut < 0:  # the newest event alone does not fit: hold nothing
                    _HEADER.pack_into(self._memory, start, 0, 0, 0, 0)
                    return
                first += body.count(_SEPARATOR, 0, cut + 1)
                body = body[cut + 1 :]
            self._memory[start + _HEADER.size : start + _HEADER.size + len(encoded_key)] = encoded_key
            self._memory[body_at : body_at + len(body)] = body
            _HEADER.pack_into(self._memory, start, first, last_version, len(body), len(encoded_key))
        finally:
            lock.release()

    def since(self, key: str, after_version: int) -> list[str] | None:
        """The texts of versions ``after_version + 1`` up to the newest one held, or None
        if the board holds no event right after ``after_version`` for ``key``."""
        encoded_key = key.encode()
        slot, lock = self._slot_of(encoded_key)
        if not lock.acquire(False):
            return None
        try:
            start = slot * self._slot_bytes
            first, last, length, key_length = _HEADER.unpack_from(self._memory, start)
            if not length or not first <= after_version + 1 <= last or not self._holds(start, key_length, encoded_key):
                return None
            # Only the wanted suffix is copied: found by separators from the end.
            body_at = start + _HEADER.size + _KEY_BYTES
            at = body_at + length
            for _ in range(last - after_version):
                at = self._memory.rfind(_SEPARATOR, body_at, at)
            wanted = self._memory[max(at + 1, body_at) : body_at + length]
        finally:
            lock.release()
        return wanted.decode().split("\n")

    def _slot_of(self, encoded_key: bytes) -> tuple[int, Any]:
        slot = zlib.crc32(encoded_key) % self._slots
        return slot, self._locks[slot % len(self._locks)]

    def _holds(self, start: int, key_length: int, encoded_key: bytes) -> bool:
        """Whether the slot at ``start`` is ``encoded_key``'s."""
        key_at = start + _HEADER.size
        return key_length == len(encoded_key) and self._memory[key_at : key_at + key_length] == encoded_key
