"""Canonical JSON and the hashes computed over it.

The canonical form is what gets stored and hashed, so it must never change:
``json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
encoded as UTF-8. NaN and infinities are refused (they are not JSON). Tuples
serialise exactly like lists, so an engine event hashes the same before and after
a JSON round trip.

Speed: ``json.dumps`` builds a new C encoder for every call, which costs more than
encoding a small object. :func:`canonical_json` calls one C encoder built once
with the same settings (the very code ``json.dumps`` runs, so the text is the
same), without the circular-reference bookkeeping -- a shared marker table would
not be thread-safe. A cyclic object then overflows the recursion limit instead,
and is handed to the standard encoder, which raises its usual ValueError.
"""

from __future__ import annotations

import hashlib
import json
from json import encoder as _json_encoder
from typing import Any

ZERO_HASH = "0" * 64
"""The ``prev_hash`` of a game's first event."""

_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)

# Arguments as JSONEncoder.iterencode passes them (markers=None: no cycle check).
_C_ENCODE = (
    None
    if _json_encoder.c_make_encoder is None  # type: ignore[attr-defined]  # private: no stub
    else _json_encoder.c_make_encoder(  # type: ignore[attr-defined]
        None, _ENCODER.default, _json_encoder.encode_basestring, None, ":", ",", True, False, False
    )
)


def canonical_json(obj: Any) -> str:
    """The canonical JSON text of ``obj``; TypeError/ValueError if not JSON data."""
    if _C_ENCODE is None:
        return _ENCODER.encode(obj)
    try:
        return "".join(_C_ENCODE(obj, 0))
    except RecursionError:
        return _ENCODER.encode(obj)  # a cycle: ValueError; merely deep: RecursionError again


def sha256_hex(text: str) -> str:
    """SHA-256 of the UTF-8 bytes of ``text``, as 64 lowercase hex digits."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
