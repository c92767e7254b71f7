"""Exported histories as JSON Lines: reading them back, checking their shape.

An export holds one stored envelope per line (``events.model.envelope``), in version
order. A *complete* export is the store's canonical text as-is; a *redacted* one
(for a viewer of a running game) carries ``"redacted": true`` on the lines that
lost something and cannot be verified.

Guarantee: :func:`parse_lines` and :func:`check_shape` accept only what could have
been stored -- every line a JSON object with exactly the envelope's fields of the
right types -- and otherwise raise :class:`~events.audit.report.Discrepant` of kind
``structure`` naming the line (= the version it should hold). They never raise
anything else, whatever the input.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from events.audit.report import STRUCTURE, Discrepant
from events.model.canonical import canonical_json
from events.schemas.envelope import EnvelopeSchema

REDACTED = "redacted"
"""The key the served form adds to the stored one (``Envelope.to_json``)."""

_SCHEMA = EnvelopeSchema()


def parse_lines(lines: Iterable[str | bytes]) -> list[dict[str, Any]]:
    """The stored envelopes in JSON Lines input (blank lines are skipped), shape-checked.

    A ``"redacted": false`` marker (the served form of a full history) is dropped;
    a ``true`` one is refused: only the complete history can be verified.
    """
    out: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        text = _text(line, number, len(out) + 1)
        if text.strip():
            raw = _parse(text, number, len(out) + 1)
            _check_one(raw, len(out) + 1)
            out.append(raw)
    if not out:
        raise Discrepant(1, STRUCTURE, "the history holds no events")
    return out


def check_shape(history: Sequence[Mapping[str, Any]]) -> None:
    """Discrepant (structure) unless every item is a well-formed stored envelope."""
    if not history:
        raise Discrepant(1, STRUCTURE, "the history holds no events")
    for version, raw in enumerate(history, start=1):
        _check_one(raw, version)


def _check_one(raw: object, version: int) -> None:
    if not isinstance(raw, Mapping):
        raise Discrepant(version, STRUCTURE, "an event must be a JSON object")
    errors = _SCHEMA.validate(raw)
    if errors:
        raise Discrepant(version, STRUCTURE, f"not a stored event: {flat_errors(errors)}")


def to_lines(history: Iterable[Mapping[str, Any]]) -> list[str]:
    """The canonical JSON text of each stored envelope (its stored form, byte for byte)."""
    return [canonical_json(dict(raw)) for raw in history]


def _text(line: str | bytes, number: int, version: int) -> str:
    if isinstance(line, str):
        return line
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        raise Discrepant(version, STRUCTURE, f"line {number} is not UTF-8 text") from None


def _parse(text: str, number: int, version: int) -> dict[str, Any]:
    try:
        raw = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise Discrepant(version, STRUCTURE, f"line {number} is not JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise Discrepant(version, STRUCTURE, f"line {number} is not a JSON object")
    marker = raw.pop(REDACTED, False)
    if marker is not False:
        raise Discrepant(
            version,
            STRUCTURE,
            "this export was redacted for a viewer (hidden facts removed); only the complete"
            " history, exported once the game has ended, can be verified",
        )
    return raw


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON data")


def flat_errors(errors: object) -> str:
    """marshmallow's nested error dict as ``field: message; ...`` (first message each)."""
    if not isinstance(errors, Mapping):
        return str(errors)
    parts = []
    for name, found in sorted(errors.items(), key=lambda item: str(item[0])):
        while isinstance(found, (list, dict)) and found:
            found = found[0] if isinstance(found, list) else next(iter(found.values()))
        parts.append(f"{name}: {found}")
    return "; ".join(parts)
