"""Typed fields of Schlitzohr commands: ear ids, field names, ear lists.

Each parser raises RuleViolation -- ``malformed_command`` for a wrong JSON type
(booleans are not integers), ``unknown_ear``/``unknown_field`` for a value of the
right type that names nothing -- and never any other exception.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.commands import list_field
from engine.errors import MALFORMED_COMMAND, RuleViolation
from engine.schlitzohr.errors import DUPLICATE_EAR, EARS_NOT_ASCENDING, UNKNOWN_EAR, UNKNOWN_FIELD
from engine.schlitzohr.state import State


def ear_id(state: State, value: Any, name: str) -> int:
    """An ear id, ``0 <= id < number of ears``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleViolation(
            MALFORMED_COMMAND, f"field {name!r} must hold integer ear ids", {"field": name}
        )
    if not 0 <= value < len(state.pos):
        raise RuleViolation(UNKNOWN_EAR, f"there is no ear {value}", {"field": name, "ear": value})
    return value


def field_index(state: State, command: Mapping[str, Any], name: str) -> int:
    """The board index of the field named in ``command[name]``."""
    value = command[name]
    if not isinstance(value, str):
        raise RuleViolation(
            MALFORMED_COMMAND, f"field {name!r} must be a field name", {"field": name}
        )
    index = state.board.index.get(value)
    if index is None:
        raise RuleViolation(UNKNOWN_FIELD, "no such field on this board", {"field": name})
    return index


def ear_list(state: State, command: Mapping[str, Any], name: str) -> list[int]:
    """Distinct ear ids in strictly ascending order (the canonical form, see legal.py)."""
    ears = [ear_id(state, value, name) for value in list_field(command, name, len(state.pos))]
    if len(set(ears)) != len(ears):
        raise RuleViolation(DUPLICATE_EAR, "each ear may be named only once", {"field": name})
    if ears != sorted(ears):
        raise RuleViolation(
            EARS_NOT_ASCENDING, "list the ear ids in ascending order", {"field": name}
        )
    return ears
