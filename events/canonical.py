"""Canonical JSON and the hashes computed over it.

The canonical form is what gets stored and hashed, so it must never change:
``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
encoded as UTF-8. NaN and infinities are refused (they are not JSON). Tuples
serialise exactly like lists, so an engine event hashes the same before and after
a JSON round trip.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

ZERO_HASH = "0" * 64
"""The ``prev_hash`` of a game's first event."""

_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def canonical_json(obj: Any) -> str:
    """The canonical JSON text of ``obj``; TypeError/ValueError if not JSON data."""
    return _ENCODER.encode(obj)


def sha256_hex(text: str) -> str:
    """SHA-256 of the UTF-8 bytes of ``text``, as 64 lowercase hex digits."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
