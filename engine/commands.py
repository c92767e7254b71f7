"""Checks for the JSON form of commands, shared by every game.

Each helper raises :class:`RuleViolation` ``malformed_command`` (with the field
name in ``details``) instead of letting a KeyError or TypeError escape, so a
client's malformed input can never surface as an unhandled exception.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import MALFORMED_COMMAND, UNKNOWN_COMMAND, RuleViolation


def command_kind(command: Any, kinds: frozenset[str] | set[str]) -> str:
    """The ``kind`` of a command object, which must be one of ``kinds``."""
    if not isinstance(command, Mapping):
        raise RuleViolation(MALFORMED_COMMAND, "a command must be a JSON object", {"field": None})
    kind = command.get("kind")
    if not isinstance(kind, str):
        raise RuleViolation(MALFORMED_COMMAND, "a command needs a string field 'kind'", {"field": "kind"})
    if kind not in kinds:
        raise RuleViolation(UNKNOWN_COMMAND, f"unknown command kind {kind!r}", {"kinds": sorted(kinds)})
    return kind


def exact_fields(command: Mapping[str, Any], *names: str) -> None:
    """The command has ``kind`` plus exactly ``names``: none missing, none extra."""
    expected = {"kind", *names}
    missing = sorted(expected - set(command))
    if missing:
        raise RuleViolation(MALFORMED_COMMAND, f"missing field {missing[0]!r}", {"field": missing[0]})
    extra = sorted(set(command) - expected, key=str)  # key=str: non-JSON callers may mix key types
    if extra:
        raise RuleViolation(MALFORMED_COMMAND, f"unexpected field {extra[0]!r}", {"field": extra[0]})


def int_field(command: Mapping[str, Any], name: str, lo: int, hi: int) -> int:
    """An integer field within ``lo..hi`` (booleans are not integers)."""
    value = command.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleViolation(MALFORMED_COMMAND, f"field {name!r} must be an integer", {"field": name})
    if not lo <= value <= hi:
        raise RuleViolation(
            MALFORMED_COMMAND, f"field {name!r} must be between {lo} and {hi}", {"field": name}
        )
    return value


def str_field(command: Mapping[str, Any], name: str, allowed: frozenset[str] | set[str] | None = None) -> str:
    """A string field, optionally one of ``allowed``."""
    value = command.get(name)
    if not isinstance(value, str):
        raise RuleViolation(MALFORMED_COMMAND, f"field {name!r} must be a string", {"field": name})
    if allowed is not None and value not in allowed:
        raise RuleViolation(
            MALFORMED_COMMAND, f"field {name!r} must be one of {sorted(allowed)}", {"field": name}
        )
    return value


def list_field(command: Mapping[str, Any], name: str, max_len: int) -> list[Any]:
    """A JSON array field of at most ``max_len`` items."""
    value = command.get(name)
    if not isinstance(value, list):
        raise RuleViolation(MALFORMED_COMMAND, f"field {name!r} must be an array", {"field": name})
    if len(value) > max_len:
        raise RuleViolation(
            MALFORMED_COMMAND, f"field {name!r} holds at most {max_len} items", {"field": name}
        )
    return value
