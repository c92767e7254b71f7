"""Comparing a recorded event with the one the rules re-compute, and naming the difference.

Events are compared in their JSON form (``type``, ``data``, ``private``,
``visible_to``), value by value with JSON types kept apart (``true`` is not ``1``),
so "equal" means "would be stored as the same text".

A difference is classified by where it lies (the event type is the same):

- in a *random outcome* -- a field whose value comes from the seed: die values,
  the ear colours, shuffle orders, dealt and drawn cards -> ``random_outcome``;
- in a score or result (``GameEnded``, the scores of ``DealEnded``) -> ``score``;
- anywhere else, or in the type itself -> ``rules``.

The table of random and score fields lives here, not in the engines, because only
the audit needs it; a new event type with a random field must be added to it (a
missing entry only makes such a mismatch read as ``rules``, never hides it).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from engine.model import JSON, Event
from events.audit.report import RANDOM_OUTCOME, RULES, SCORE
from events.model.envelope import Envelope

RANDOM_FIELDS: Mapping[str, tuple[str, ...]] = {
    # Schlitzohr
    "GameSetUp": ("private.colours",),
    "DieRolled": ("data.value",),
    # Abluxxen
    "DeckShuffled": ("private.order",),
    "HandDealt": ("private.cards",),
    "DisplayDealt": ("data.cards",),
    "DisplayRefilled": ("data.cards",),
    "CardDrawn": ("private.card",),  # a pile card; a display card is in data.card (a choice)
}
"""Per event type: the paths of fields drawn from the seed."""

SCORE_FIELDS: Mapping[str, tuple[str, ...]] = {
    "GameEnded": ("data",),
    "DealEnded": ("data.scores", "data.deal_scores"),
}
"""Per event type: the paths of scores and results."""

_MISSING = object()
_SHORT = 120


def event_json(event: Event | Envelope) -> JSON:
    """The comparable JSON form of an engine event or a stored envelope."""
    return {
        "type": event.type,
        "data": _plain(event.data),
        "private": None if event.private is None else _plain(event.private),
        "visible_to": list(event.visible_to),
    }


def difference(recorded: Envelope, expected: Event) -> tuple[str, str] | None:
    """``(kind, message)`` for the first difference between the two, or None if equal."""
    if recorded.type != expected.type:
        return RULES, f"the history has {recorded.type} where the rules give {expected.type}"
    found = first_difference(event_json(recorded), event_json(expected))
    if found is None:
        return None
    path, mine, theirs = found
    kind = classify(recorded.type, path)
    source = "the revealed seed gives" if kind == RANDOM_OUTCOME else "the rules give"
    return (
        kind,
        f"{recorded.type}: {path} is {_short(mine)} in the history, {source} {_short(theirs)}",
    )


def classify(event_type: str, path: str) -> str:
    """The kind of a difference at ``path`` (e.g. ``data.value``) in an event of that type."""
    if _under(path, RANDOM_FIELDS.get(event_type, ())):
        return RANDOM_OUTCOME
    if _under(path, SCORE_FIELDS.get(event_type, ())):
        return SCORE
    return RULES


def first_difference(a: Any, b: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """``(path, a's value, b's value)`` at the first place two JSON values differ."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in [*a, *(k for k in b if k not in a)]:
            sub = f"{path}.{key}" if path else str(key)
            mine, theirs = a.get(key, _MISSING), b.get(key, _MISSING)
            if mine is _MISSING or theirs is _MISSING:
                return sub, mine, theirs
            found = first_difference(mine, theirs, sub)
            if found is not None:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for index, (mine, theirs) in enumerate(zip(a, b, strict=False)):
            found = first_difference(mine, theirs, f"{path}[{index}]")
            if found is not None:
                return found
        return None if len(a) == len(b) else (path, a, b)
    return None if type(a) is type(b) and a == b else (path, a, b)


def _under(path: str, prefixes: tuple[str, ...]) -> bool:
    return any(path == p or path.startswith((p + ".", p + "[")) for p in prefixes)


def _plain(value: Any) -> Any:
    """Tuples as lists, mappings as dicts: the JSON an event is stored as."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def _short(value: Any) -> str:
    if value is _MISSING:
        return "missing"
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    return text if len(text) <= _SHORT else text[: _SHORT - 3] + "..."
