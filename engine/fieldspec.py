"""Typed descriptions of command fields: one definition gives the catalogue's short text
and the JSON Schema the published contract (``openapi.yaml``) carries.

A :class:`FieldSpec` is plain data (no I/O, no validation library): ``schema`` is a JSON
Schema (2020-12, as OpenAPI 3.1 uses it) of the field's value, ``text`` the short
description the catalogue shows (``"int 0..15"``). The builders below derive both from
the same bounds, so the two can never disagree; ``service/contract`` turns a game's
:class:`engine.model.CommandSpec` list into one schema per command kind.

What JSON Schema cannot say (an order of list items, a bound that depends on the game's
state, such as a seat number below the number of players) stays a rule of the engine,
answered with its own code (``ears_not_ascending``, ``malformed_command``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

JSON = dict[str, Any]


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One command field: its JSON Schema and its short description."""

    schema: Mapping[str, Any]
    text: str

    def json_schema(self) -> JSON:
        """A fresh copy of ``schema`` (callers may embed it and edit their copy)."""
        return _copy(self.schema)


def integer(lo: int, hi: int, *, nullable: bool = False, text: str | None = None) -> FieldSpec:
    """A JSON integer in ``lo..hi`` (booleans are not integers), optionally ``null``."""
    types: Any = ["integer", "null"] if nullable else "integer"
    schema: JSON = {"type": types, "minimum": lo, "maximum": hi}
    default = f"int {lo}..{hi}" + (" | null" if nullable else "")
    return FieldSpec(schema, text or default)


def const(value: str) -> FieldSpec:
    """Exactly the string ``value``."""
    return FieldSpec({"const": value}, f'"{value}"')


def choice(*values: str) -> FieldSpec:
    """One of the strings ``values``."""
    return FieldSpec({"type": "string", "enum": list(values)}, " | ".join(f'"{v}"' for v in values))


def pattern(regex: str, text: str, max_length: int = 64) -> FieldSpec:
    """A string matching ``regex`` in full (ECMA-262, as JSON Schema reads it)."""
    return FieldSpec(
        {"type": "string", "pattern": f"^(?:{regex})$", "minLength": 1, "maxLength": max_length},
        text,
    )


def ascending_list(item: FieldSpec, max_items: int, text: str | None = None) -> FieldSpec:
    """A list of distinct ``item`` values, at most ``max_items`` (the engine also wants
    them strictly ascending, which JSON Schema cannot say: ``uniqueItems`` is its part)."""
    schema: JSON = {
        "type": "array",
        "items": item.json_schema(),
        "maxItems": max_items,
        "uniqueItems": True,
    }
    return FieldSpec(schema, text or f"list of {item.text}, strictly ascending")


def one_of(*options: FieldSpec, text: str | None = None) -> FieldSpec:
    """Any of ``options`` (their schemas must not overlap)."""
    return FieldSpec(
        {"oneOf": [o.json_schema() for o in options]}, text or " | ".join(o.text for o in options)
    )


def _copy(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy(v) for v in value]
    return value
