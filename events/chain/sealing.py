"""Sealing: turning a batch of engine events into stored, hash-chained envelope text.

Two seals exist (``events.model.envelope`` describes both stored forms):

- **seal 2** (:func:`seal`, what every write uses): the hidden parts -- ``private``
  and ``command`` -- enter the chain only through salted commitments,
  ``private_digest`` and ``command_digest`` (:func:`commit_digest`), and ``hash``
  covers the stored form without ``hash``, ``private`` and ``command``. Without the
  game's secret seed nobody can test a guess about a hidden part against anything
  a viewer receives; after the end the seed is revealed and anyone recomputes the
  digests.
- **seal 1** (:func:`seal_v1`, never written any more): ``hash`` covered the whole
  stored form, hidden parts included, so a redacted event's hash let anyone test
  guesses about them. Kept, pure, to describe and check old histories.

Pure (time, actor, command and the commitment key are arguments). Guarantees:
versions are consecutive from ``first_version``; each event's ``prev_hash`` is the
previous event's ``hash`` (the batch's first one is the ``prev_hash`` argument);
``text`` equals ``canonical_json`` of the stored form and ``hash`` is
``events.chain.event_hash`` of it (``tests/integration/test_store_pure.py`` checks
both against the straightforward definitions).

Why not just ``canonical_json(body)`` twice: appends are the hot write path. The
envelope's keys are fixed, so the canonical text is assembled from canonical
pieces in sorted key order -- the batch-wide pieces (actor, command, game id,
time) are encoded once per batch and each event's text is encoded only once. The
HMAC key schedule and the per-game message prefix are computed once per game
(:class:`CommitKey`); each digest costs two hash-object copies and short updates.
:func:`seal_encoded` takes the actor and command already encoded (``events.chain.batch``
needs those texts for its checks as well).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from engine.model import JSON, Event
from events.model.canonical import canonical_json, sha256_hex

SEAL = 2
"""The seal every write uses (the stored ``"seal"`` field; absent = seal 1)."""

COMMIT_DOMAIN = "tabletop/commit/v2"
"""Domain label of the commitments: no other HMAC under the seed (the engine's
random draws are ``HMAC(seed, rules_version | purpose)``) starts with it."""

PRIVATE = "private"
COMMAND = "command"


def commit_digest(seed: str, game_id: str, version: int, part: str, value: Any) -> str:
    """The commitment to one hidden part -- the straightforward definition::

        HMAC-SHA256(key = bytes.fromhex(seed),
                    msg = "tabletop/commit/v2\\0<game_id>\\0<version>\\0<part>\\0"
                          + canonical_json(value))   (UTF-8), as 64 lowercase hex

    ``part`` is ``"private"`` or ``"command"``. The version is in the message, so two
    equal hidden parts (the same card drawn twice) get unrelated digests. ValueError
    for a seed that is not hex.
    """
    message = f"{COMMIT_DOMAIN}\x00{game_id}\x00{version}\x00{part}\x00{canonical_json(value)}"
    return hmac.new(bytes.fromhex(seed), message.encode("utf-8"), hashlib.sha256).hexdigest()


class CommitKey:
    """:func:`commit_digest` for one game, with the key schedule and the message prefix
    hashed once: each digest then costs two ``hashlib`` copies and two short updates.

    This is HMAC-SHA256 exactly as RFC 2104 defines it (inner and outer SHA-256 over
    the padded key), built from ``hashlib`` objects because ``hmac.HMAC.copy`` adds
    about a microsecond of Python per call on the append hot path;
    ``tests/integration/test_store_pure.py`` checks it against ``hmac``. Immutable
    after construction and safe to share between threads (``copy`` does not change
    it). Holds the game's secret seed in effect: keep it in server memory only.
    """

    __slots__ = ("game_id", "_inner", "_outer")

    _BLOCK = 64  # SHA-256's block size: the HMAC key is padded (or first hashed) to it

    def __init__(self, seed: str, game_id: str) -> None:
        """ValueError for a seed that is not hex."""
        key = bytes.fromhex(seed)
        if len(key) > self._BLOCK:
            key = hashlib.sha256(key).digest()
        key = key.ljust(self._BLOCK, b"\0")
        self.game_id = game_id
        self._inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
        self._inner.update(f"{COMMIT_DOMAIN}\x00{game_id}\x00".encode())
        self._outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))

    def digest(self, version: int, part: str, text: str) -> str:
        """The digest of the hidden part whose canonical JSON is ``text``."""
        inner = self._inner.copy()
        inner.update(f"{version}\x00{part}\x00{text}".encode())
        outer = self._outer.copy()
        outer.update(inner.digest())
        return outer.hexdigest()


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
    key: CommitKey,
) -> list[Sealed]:
    """Seal-2 envelopes for ``events`` at versions ``first_version``, ``first_version + 1``, ...

    ``schema_version(type)`` gives each type's current schema version; ``key`` is the
    game's :class:`CommitKey` (its ``game_id`` must be ``game_id``). The caller has
    validated ``game_id`` (``keys.GAME_ID``), ``time`` (ISO-8601) and the event types
    (registered CamelCase names); ``prev_hash`` is hex. Raises TypeError/ValueError if
    anything else is not JSON data (a non-dict mapping included).
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
        key=key,
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
    key: CommitKey,
) -> list[Sealed]:
    """:func:`seal` with the actor and command given as their canonical JSON texts."""
    if key.game_id != game_id:
        raise ValueError(f"the commitment key is for game {key.game_id!r}, not {game_id!r}")
    # Stored keys in sorted order: actor command command_digest data game_id [hash]
    # prev_hash private private_digest schema_version seal time type version visible_to;
    # the hashed form is the same without hash, command and private. Game ids, hashes,
    # digests, times and type names never need JSON escapes (their formats are
    # validated before sealing), so they are quoted directly; everything else goes
    # through the canonical encoder.
    has_command = command_text != "null"
    actor_part = f'{{"actor":{actor_text}'
    command_part = f',"command":{command_text}'
    game_part = f',"game_id":"{game_id}"'
    time_part = f',"seal":{SEAL},"time":"{time}"'
    digest = key.digest
    out: list[Sealed] = []
    version = first_version
    for event in events:
        data = canonical_json(event.data)
        if event.private is None:
            private, visible, private_digest = "null", "[]", "null"
        else:
            private, visible = canonical_json(event.private), canonical_json(list(event.visible_to))
            private_digest = f'"{digest(version, PRIVATE, private)}"'
        command_digest = f'"{digest(version, COMMAND, command_text)}"' if has_command else "null"
        middle = f',"command_digest":{command_digest},"data":{data}{game_part}'
        prev_part = f',"prev_hash":"{prev_hash}"'
        rest = (
            f',"private_digest":{private_digest},"schema_version":{schema_version(event.type)}'
            f'{time_part},"type":"{event.type}","version":{version},"visible_to":{visible}}}'
        )
        prev_hash_new = sha256_hex(actor_part + middle + prev_part + rest)
        text = (
            f'{actor_part}{command_part}{middle},"hash":"{prev_hash_new}"{prev_part}'
            f',"private":{private}{rest}'
        )
        prev_hash = prev_hash_new
        out.append(Sealed(version, event.type, text, prev_hash, data, private))
        version += 1
    return out


def seal_v1(
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
    """Seal-1 envelopes (no ``seal`` field; ``hash`` over everything but itself, hidden
    parts included). Never used to write: it states what old histories hold, and lets
    tests show what seal 1 exposes. Same preconditions as :func:`seal`."""
    head = f'{{"actor":{canonical_json(actor)},"command":{canonical_json(command)},"data":'
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
