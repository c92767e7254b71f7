"""Upcasters: stored events written by older code load as the current schema.

An upcaster is a plain function from the stored form of an event at
``schema_version = n`` to its form at ``n + 1`` (it must not mutate its input).
:meth:`Upcasters.upcast` applies them in order until no step is registered for
the event's ``(type, schema_version)``. Stored events are never rewritten: the
upcast form exists only in memory, and its ``hash`` still belongs to the stored
bytes (the chain verifier therefore works on the stored form).

History of the steps registered by default
------------------------------------------
- ``GameCreated`` v1 -> v2: v1 (the draft store) named the seat count ``players``
  and the seed commitment ``seed_sha256``. Once bots could take seats, "players"
  read as "people"; and the field is a commitment whatever the hash function, so
  v2 says ``seats`` and ``commitment``. Values are unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from events.model.errors import UpcastError

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]


class Upcasters:
    """A registry of ``(type, from_schema_version) -> upcaster``."""

    def __init__(self) -> None:
        self._steps: dict[tuple[str, int], Upcaster] = {}
        self._types: set[str] = set()  # fast path: most types have no upcaster at all

    def register(self, event_type: str, from_version: int, step: Upcaster) -> None:
        """Add the step from ``from_version`` to ``from_version + 1``; ValueError if taken."""
        if (event_type, from_version) in self._steps:
            raise ValueError(f"an upcaster for {event_type} v{from_version} already exists")
        self._steps[(event_type, from_version)] = step
        self._types.add(event_type)

    def upcast(self, raw: dict[str, Any]) -> dict[str, Any]:
        """``raw`` at its newest known schema version (``raw`` itself if already there)."""
        if raw["type"] not in self._types:
            return raw
        while (step := self._steps.get((raw["type"], raw["schema_version"]))) is not None:
            version = raw["schema_version"]
            try:
                raw = step(raw)
            except (KeyError, TypeError, ValueError) as exc:
                raise UpcastError(f"cannot upcast {raw['type']} v{version}: {exc!r}") from exc
            raw["schema_version"] = version + 1
        return raw


def game_created_v1_to_v2(raw: dict[str, Any]) -> dict[str, Any]:
    """Rename ``players`` -> ``seats`` and ``seed_sha256`` -> ``commitment``."""
    data = dict(raw["data"])
    data["seats"] = data.pop("players")
    data["commitment"] = data.pop("seed_sha256")
    return {**raw, "data": data}


def default_upcasters() -> Upcasters:
    """The upcasters every store uses (see the history above)."""
    upcasters = Upcasters()
    upcasters.register("GameCreated", 1, game_created_v1_to_v2)
    return upcasters
