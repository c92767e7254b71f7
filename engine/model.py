"""Plain data shared by every game: events, results, option and command specs.

Commands are plain JSON objects (``{"kind": "roll"}``); events are :class:`Event`
values with a stable JSON form. Both are the public contract of the API and of
the stored history, so field names never change meaning once published.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.fieldspec import FieldSpec

JSON = dict[str, Any]
Command = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Event:
    """One fact the rules produced.

    ``data`` is public. ``private`` holds the facts hidden during play (a hand, a
    peeked colour, the pile order); only the seats in ``visible_to`` may see it
    while the game runs (an empty tuple means nobody). ``evolve`` uses both parts;
    every read path redacts with :meth:`redacted_for`.
    """

    type: str
    data: Mapping[str, Any]
    private: Mapping[str, Any] | None = None
    visible_to: tuple[int, ...] = ()

    def is_visible_to(self, seat: int | None) -> bool:
        """Whether ``seat`` (None = spectator) may see the private part."""
        return self.private is None or (seat is not None and seat in self.visible_to)

    def redacted_for(self, seat: int | None) -> Event:
        """The event as ``seat`` may see it: the private part removed if hidden."""
        if self.is_visible_to(seat):
            return self
        return Event(self.type, self.data, None, self.visible_to)

    def to_json(self) -> JSON:
        out: JSON = {"type": self.type, "data": dict(self.data)}
        if self.private is not None:
            out["private"] = dict(self.private)
            out["visible_to"] = list(self.visible_to)
        return out

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Event:
        private = raw.get("private")
        return cls(
            type=raw["type"],
            data=dict(raw.get("data") or {}),
            private=dict(private) if private is not None else None,
            visible_to=tuple(raw.get("visible_to") or ()),
        )


@dataclass(frozen=True, slots=True)
class Result:
    """The outcome of a finished game. ``winners`` share the win."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    reason: str
    turns: int

    def to_json(self) -> JSON:
        return {
            "scores": list(self.scores),
            "winners": list(self.winners),
            "reason": self.reason,
            "turns": self.turns,
        }


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One game option: its type (``int``, ``bool`` or ``choice``), default and limits."""

    name: str
    type: str
    default: Any
    description: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()

    def to_json(self) -> JSON:
        out: JSON = {
            "name": self.name,
            "type": self.type,
            "default": self.default,
            "description": self.description,
        }
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.choices:
            out["choices"] = list(self.choices)
        return out

    def json_schema(self) -> JSON:
        """The JSON Schema of this option's value (as ``engine.options`` checks it)."""
        out: JSON = {"description": self.description}
        if self.type == "bool":
            out["type"] = "boolean"
        elif self.type == "int":
            out["type"] = "integer"
            if self.minimum is not None:
                out["minimum"] = self.minimum
            if self.maximum is not None:
                out["maximum"] = self.maximum
        else:
            out.update(type="string", enum=list(self.choices))
        out["default"] = self.default
        return out


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """The JSON form of one command kind: the catalogue's entry and the contract's schema.

    ``fields`` maps each field name (besides ``kind``) to a :class:`FieldSpec` -- its
    JSON Schema and the short text the catalogue shows; every field is required.
    ``cases`` (optional) lists the alternative field sets when the fields depend on
    each other (Abluxxen's ``draw``: a ``card`` only ``from`` the display); then the
    command is exactly one of them. ``example`` is a valid instance.
    """

    kind: str
    description: str
    fields: Mapping[str, FieldSpec] = field(default_factory=dict)
    example: Mapping[str, Any] = field(default_factory=dict)
    cases: tuple[Mapping[str, FieldSpec], ...] = ()

    def to_json(self) -> JSON:
        return {
            "kind": self.kind,
            "description": self.description,
            "fields": {name: spec.text for name, spec in self.fields.items()},
            "example": dict(self.example) or {"kind": self.kind},
        }

    def json_schema(self) -> JSON:
        """The JSON Schema of this command kind: an object with ``kind`` = :attr:`kind`
        and exactly the fields of :attr:`fields` (or of one of :attr:`cases`)."""
        if not self.cases:
            return self._object(self.fields)
        return {
            "description": self.description,
            "oneOf": [self._object(case, described=False) for case in self.cases],
        }

    def _object(self, fields: Mapping[str, FieldSpec], described: bool = True) -> JSON:
        properties: JSON = {"kind": {"const": self.kind}}
        properties.update({name: spec.json_schema() for name, spec in fields.items()})
        out: JSON = {"type": "object"}
        if described:
            out["description"] = self.description
        out.update(
            required=["kind", *fields], properties=properties, additionalProperties=False
        )
        return out
