"""The hash chain: verifying a stored history (``events.chain.sealing`` builds it).

:func:`first_break` names the *first* version at which the stored history stops
being a valid chain, so an edited event is reported at exactly its own version (an
edit that also recomputed that event's hash is reported at the next version, whose
``prev_hash`` no longer matches).

Each event is checked under its own seal (``events.model.envelope``):

- seal 1 (no ``seal`` field): ``hash`` = SHA-256 of the canonical stored form
  without ``hash`` -- hidden parts included.
- seal 2: ``hash`` = SHA-256 of the canonical stored form without ``hash``,
  ``private`` and ``command``; those two are bound by ``private_digest`` and
  ``command_digest`` (``events.chain.sealing.commit_digest``, keyed by the game's seed).
  Without the seed only the links are checked -- which a redacted event passes on
  its own (its digests stay, its hidden parts are gone). With the seed
  (``seed=``: the server, or anyone once ``SeedRevealed`` published it) every
  hidden part present is checked against its digest, and a digest without its part
  is refused, so an edited private part or command is reported at its version.

Verification runs on the stored form *before* upcasting: the hash covers the bytes
as they were written, whatever schema version they have.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from events.chain.sealing import COMMAND, PRIVATE, SEAL, CommitKey
from events.model.canonical import ZERO_HASH, canonical_json, sha256_hex
from events.model.errors import ChainBroken

HIDDEN_PARTS = (PRIVATE, COMMAND)
"""The parts seal 2 commits to by digest instead of hashing them."""

_NOT_HASHED_V2 = frozenset(("hash", PRIVATE, COMMAND))


def seal_of(raw: Mapping[str, Any]) -> int | None:
    """The seal of a stored event: 1 without a ``seal`` field, else its value if known
    (None for anything else, e.g. ``"2"``, ``true`` or a future seal)."""
    if "seal" not in raw:
        return 1
    value = raw["seal"]
    return value if type(value) is int and value == SEAL else None


def event_hash(raw: Mapping[str, Any]) -> str:
    """The hash a stored event should carry, under its seal (see the module docstring).

    For a served (redacted) seal-2 event drop its ``redacted`` marker first."""
    if seal_of(raw) == SEAL:
        return sha256_hex(canonical_json({k: v for k, v in raw.items() if k not in _NOT_HASHED_V2}))
    return event_hash_v1(raw)


def event_hash_v1(raw: Mapping[str, Any]) -> str:
    """The seal-1 hash: over the stored form without ``hash`` (hidden parts included)."""
    return sha256_hex(canonical_json({k: v for k, v in raw.items() if k != "hash"}))


def first_break(
    game_id: str, entries: Iterable[tuple[int, Mapping[str, Any]]], seed: str | None = None
) -> tuple[int, str] | None:
    """``(version, reason)`` of the first broken link, or None if the chain holds.

    ``entries`` are ``(version from the stream entry id, stored dict)`` in stream order.
    ``seed`` (hex): also check every seal-2 event's hidden parts against their digests.
    """
    key = CommitKey(seed, game_id) if seed is not None else None
    expected, prev = 1, ZERO_HASH
    for entry_version, raw in entries:
        reason = _link_problem(game_id, expected, prev, entry_version, raw)
        if reason is None and key is not None:
            reason = digest_problem(key, raw)
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
    if seal_of(raw) is None:
        return f"unknown seal {raw.get('seal')!r}"
    if raw.get("hash") != event_hash(raw):
        return "hash does not match the event's content"
    return None


def digest_problem(key: CommitKey, raw: Mapping[str, Any]) -> str | None:
    """Why the hidden parts of the complete stored event ``raw`` do not match its
    digests under ``key`` (None if they match, or for a seal-1 event, which has none)."""
    if seal_of(raw) != SEAL:
        return None
    for part in HIDDEN_PARTS:
        value, digest = raw.get(part), raw.get(f"{part}_digest")
        if value is None and digest is None:
            continue
        if value is None:
            return f"{part}_digest commits to a {part} part the event does not hold"
        if digest is None:
            return f"the {part} part has no {part}_digest"
        if digest != key.digest(raw["version"], part, canonical_json(value)):
            return f"the {part} part does not match its {part}_digest"
    return None


def verify(
    game_id: str,
    entries: Sequence[tuple[int, Mapping[str, Any]]],
    head: tuple[int, str],
    seed: str | None = None,
) -> None:
    """Raise :class:`ChainBroken` unless ``entries`` form a valid chain ending at ``head``.

    ``head`` is the stored ``(version, hash)``; a head past the last entry means
    events are missing, a different hash means the tail was replaced. ``seed``: as in
    :func:`first_break`.
    """
    broken = first_break(game_id, entries, seed)
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
