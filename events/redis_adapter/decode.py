"""Decoding stored stream entries into envelopes, upcast and redacted.

This is the hot path of every replay, so it trusts the stored shape (the write
path validated it) and does per event only: one JSON parse (:func:`loads`), a set
lookup to see whether the type has upcasters, one envelope construction, and -- for
viewers who may not see everything -- one redaction.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import orjson

from events.model.envelope import Envelope
from events.model.redaction import Viewer, redact, sees_everything
from events.model.upcasting import Upcasters

Entry = tuple[Any, dict[Any, Any]]
"""A stream entry as redis-py returns it: ``(entry id, {field: value})``."""


def entry_fields(flat: list[Any]) -> dict[Any, Any]:
    """A stream entry's fields as Redis sends them (``[field, value, ...]``, a reply read
    without redis-py's callbacks) as the dict those callbacks make."""
    return dict(zip(flat[::2], flat[1::2]))


def entry_version(entry_id: bytes | str) -> int:
    """The version of a stream entry id ``<version>-0``."""
    text = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
    return int(text.partition("-")[0])


def loads(text: str | bytes) -> Any:
    """The JSON value of a stored text -- exactly the one ``json.loads`` gives: orjson's
    parse, checked by writing it back, else the standard library's.

    Why the check: orjson reads an integer past 64 bits as a float (3.13; earlier
    versions refused it), where ``json.loads`` keeps it exact. No engine writes one, but
    an imported history might hold one. A stored text is canonical JSON, which
    ``orjson.dumps`` of its value writes back byte for byte; a text that does not come
    back the same (such an integer, or any text not canonical) is read by ``json.loads``.
    The check costs about 0.6 µs of the parse's 1.8 (590 bytes;
    ``tests/unit/test_stored_json.py`` is the property it keeps).

    Why orjson: an event stream decodes every event it sends, and a read every event
    after the table it holds; a stored event (550 bytes) took 14.8 µs with ``json.loads``
    and 3.9 µs with orjson here (``docs/bench-rounds.md``, *Sixth round*)."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
    if orjson.dumps(value) == (text if isinstance(text, bytes) else text.encode()):
        return value
    return json.loads(text)


def decode(entries: Iterable[Entry], field: Any, upcasters: Upcasters) -> list[Envelope]:
    """Envelopes of ``entries`` at the current schema versions (not yet redacted)."""
    # One pass, not stored_forms then a map: this is every replay's loop.
    upcast, from_stored = upcasters.upcast, Envelope.from_stored
    return [from_stored(upcast(loads(fields[field]))) for _, fields in entries]


def stored_forms(
    entries: Iterable[Entry], field: Any, upcasters: Upcasters
) -> list[dict[str, Any]]:
    """The stored dicts of ``entries``, upcast: what :func:`decode` builds its envelopes
    of, for a caller that serves them as they are (``events.model.redaction.served_form``)."""
    upcast = upcasters.upcast
    return [upcast(loads(fields[field])) for _, fields in entries]


def decode_texts(texts: Iterable[str | bytes], upcasters: Upcasters) -> list[Envelope]:
    """:func:`decode` for stored texts without their stream entries."""
    upcast, from_stored = upcasters.upcast, Envelope.from_stored
    return [from_stored(upcast(loads(text))) for text in texts]


def redact_all(envelopes: Sequence[Envelope], viewer: Viewer, finished: bool) -> list[Envelope]:
    """``envelopes`` as ``viewer`` may see them; the same list when nothing is hidden."""
    if sees_everything(viewer, finished):
        return list(envelopes)
    return [redact(e, viewer, finished) for e in envelopes]


def stored_dicts(entries: Iterable[Entry], field: Any) -> list[tuple[int, dict[str, Any]]]:
    """``(version from the entry id, stored dict)`` pairs, not upcast: for the chain verifier."""
    return [(entry_version(entry_id), json.loads(fields[field])) for entry_id, fields in entries]
