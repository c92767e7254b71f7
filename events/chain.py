"""The hash chain: verifying a stored history (``events.sealing`` builds it).

:func:`verify` names the *first* version at which the stored history stops being a
valid chain, so an edited event is reported at exactly its own version (an edit
that also recomputed that event's hash is reported at the next version, whose
``prev_hash`` no longer matches).

Verification runs on the stored form *before* upcasting: the hash covers the bytes
as they were written, whatever schema version they have.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from events.canonical import ZERO_HASH, canonical_json, sha256_hex
from events.errors import ChainBroken


def event_hash(raw: Mapping[str, Any]) -> str:
    """The hash a stored event should carry: over its stored form without ``hash``."""
    return sha256_hex(canonical_json({k: v for k, v in raw.items() if k != "hash"}))


def first_break(
    game_id: str, entries: Iterable[tuple[int, Mapping[str, Any]]]
) -> tuple[int, str] | None:
    """``(version, reason)`` of the first broken link, or None if the chain holds.

    ``entries`` are ``(version from the stream entry id, stored dict)`` in stream order.
    """
    expected, prev = 1, ZERO_HASH
    for entry_version, raw in entries:
        reason = _link_problem(game_id, expected, prev, entry_version, raw)
        if reason is not None:
            return min(expected, entry_version), reason
        expected, prev = expected + 1, raw["hash"]
    return None


def _link_problem(
    game_id: str, expected: int, prev: str, entry_version: int, raw: Mapping[str, Any]
) -> str | None:
    if entry_version != expected:
        return f"stream entry {entry_version} where version {expected} was expected"
    if raw.get("version") != entry_version or raw.get("game_id") != game_id:
        return "envelope version or game id differs from its stream entry"
    if raw.get("prev_hash") != prev:
        return "prev_hash does not match the previous event's hash"
    if raw.get("hash") != event_hash(raw):
        return "hash does not match the event's content"
    return None


def verify(
    game_id: str, entries: Sequence[tuple[int, Mapping[str, Any]]], head: tuple[int, str]
) -> None:
    """Raise :class:`ChainBroken` unless ``entries`` form a valid chain ending at ``head``.

    ``head`` is the stored ``(version, hash)``; a head past the last entry means
    events are missing, a different hash means the tail was replaced.
    """
    broken = first_break(game_id, entries)
    if broken is not None:
        raise ChainBroken(game_id, *broken)
    last_version, last_hash = (
        (entries[-1][0], entries[-1][1]["hash"]) if entries else (0, ZERO_HASH)
    )
    if head[0] != last_version:
        reason = f"head says version {head[0]}, the stream ends at {last_version}"
        raise ChainBroken(game_id, min(head[0], last_version) + 1, reason)
    if head[1] != last_hash:
        raise ChainBroken(game_id, last_version, "head hash differs from the last event's hash")
