"""Which event types exist, their current schema version, and their data schemas.

A :class:`SchemaRegistry` maps ``(game type, event type)`` to an :class:`EventType`:
the marshmallow schema of its public ``data``, the schema of its ``private`` part
(None = the event never has one) and its current ``schema_version``. Shared types
(``GameCreated``, ``GameEnded``, ``SeedRevealed``) are valid in every game.

Guarantee: :meth:`SchemaRegistry.check` accepts an engine event iff its type is
registered for the game and both parts match their schemas; otherwise it raises
:class:`~events.model.errors.InvalidEvent` (:class:`~events.model.errors.UnknownEventType` for
an unregistered type). :meth:`SchemaRegistry.check_metadata` does the same for the
metadata a caller supplies (actor, command, time); everything else in an envelope
is produced by ``events.chain.sealing`` and covered by ``EnvelopeSchema`` in the tests.

Speed: marshmallow costs more than the Redis round trip of an append, so verdicts
are memoised -- on the canonical text of an event's parts, and on the canonical
text of an actor (``true`` and ``1`` differ there, so ``True`` never passes for
``1``). Validation is a pure function of those texts (the JSON value they spell;
``tests/integration/test_store_schemas.py`` checks the memo against marshmallow),
so the memo cannot change an answer. Lookups of ``(game, type)`` are cached too.
A memo miss first tries the schema's compiled check (``events.schemas.fastcheck``):
it accepts only what marshmallow accepts, and leaves every refusal to marshmallow.
Registries are built once and then only read, apart from those caches (plain dict
operations, thread-safe under the GIL; the memo is emptied when full).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from marshmallow import Schema

from engine.model import JSON, Event
from events.model.canonical import canonical_json
from events.model.errors import InvalidEvent, UnknownEventType
from events.schemas.envelope import ActorSchema
from events.schemas.fastcheck import Check, compile_schema
from events.schemas.fields import EVENT_TYPE_RE, ISO_UTC_RE, MAX_SEAT

MEMO_SIZE = 50_000
"""Remembered verdicts per registry (events and actors)."""


@dataclass(frozen=True, slots=True)
class EventType:
    """One event type: its schemas and current schema version."""

    name: str
    data: Schema
    private: Schema | None = None
    version: int = 1
    description: str = field(default="", compare=False)


class SchemaRegistry:
    """Event types per game type, plus types shared by every game."""

    def __init__(
        self,
        shared: Iterable[EventType] = (),
        games: Mapping[str, Iterable[EventType]] | None = None,
    ) -> None:
        self._shared: dict[str, EventType] = {}
        self._games: dict[str, dict[str, EventType]] = {}
        self._actor = ActorSchema()
        self._memo: dict[tuple[Any, ...], bool] = {}
        self._found: dict[tuple[str, str], EventType] = {}  # lookup cache, registered games only
        self._fast: dict[Schema, Check | None] = {}  # fastcheck's predicate per schema
        self._add(self._shared, shared)
        for game, types in (games or {}).items():
            self.register(game, *types)

    def register(self, game: str, *types: EventType) -> None:
        """Add ``types`` for ``game`` (call while building the registry, not later).

        ValueError for a name that is not CamelCase: sealing quotes names unescaped.
        """
        self._add(self._games.setdefault(game, {}), types)
        self._found.clear()

    @staticmethod
    def _add(table: dict[str, EventType], types: Iterable[EventType]) -> None:
        for t in types:
            if not EVENT_TYPE_RE.match(t.name):
                raise ValueError(f"event type names are CamelCase: {t.name!r}")
            table[t.name] = t

    def games(self) -> list[str]:
        """The game types with registered events, sorted."""
        return sorted(self._games)

    def types(self, game: str) -> dict[str, EventType]:
        """Every event type valid in ``game``, shared ones included."""
        return {**self._shared, **self._games.get(game, {})}

    def lookup(self, game: str, event_type: str, index: int = 0) -> EventType:
        """The type's entry, or :class:`UnknownEventType`."""
        if type(game) is str and type(event_type) is str:
            found = self._found.get((game, event_type))
            if found is not None:
                return found
        found = None
        if isinstance(game, str) and isinstance(event_type, str):
            found = self._games.get(game, {}).get(event_type) or self._shared.get(event_type)
        if found is None:
            raise UnknownEventType(game, event_type, index)
        if type(game) is str and type(event_type) is str and game in self._games:
            self._found[(game, event_type)] = found
        return found

    def check(
        self, game: str, event: Event, index: int = 0, texts: tuple[str, str] | None = None
    ) -> None:
        """Validate an engine event's ``data``, ``private`` and ``visible_to``.

        ``texts`` = the canonical JSON of ``data`` and ``private``, if known: the
        verdict is then memoised on them.
        """
        if event.visible_to and any(
            type(s) is not int or not 0 <= s <= MAX_SEAT for s in event.visible_to
        ):
            raise InvalidEvent(
                event.type, index, {"visible_to": [f"seats must be integers in 0..{MAX_SEAT}"]}
            )
        key = None if texts is None else (game, event.type, texts[0], texts[1])
        if key is not None and key in self._memo:
            return
        entry = self.lookup(game, event.type, index)
        if not self._surely_valid(entry, event):
            errors = self._errors(entry, event)
            if errors:
                raise InvalidEvent(event.type, index, errors)
        if key is not None:
            self._remember(key)

    def _surely_valid(self, entry: EventType, event: Event) -> bool:
        """True if the compiled checks (``fastcheck``) accept both parts: then marshmallow
        would too. False means "ask marshmallow", not "invalid"."""
        data_ok = self._compiled(entry.data)
        if data_ok is None:
            return False
        private_ok = None
        if event.private is not None:
            if entry.private is None:
                return False
            private_ok = self._compiled(entry.private)
            if private_ok is None:
                return False
        try:
            return data_ok(event.data) and (private_ok is None or private_ok(event.private))
        except Exception:  # noqa: BLE001 - e.g. a comparison of odd types: let marshmallow say
            return False

    def _compiled(self, schema: Schema) -> Check | None:
        if schema not in self._fast:
            self._fast[schema] = compile_schema(schema)
        return self._fast[schema]

    def _errors(self, entry: EventType, event: Event) -> dict[str, Any]:
        errors = entry.data.validate(event.data)
        if event.private is not None:
            if entry.private is None:
                errors["private"] = ["this event type has no private part"]
            else:
                errors.update(
                    {f"private.{k}": v for k, v in entry.private.validate(event.private).items()}
                )
        return errors

    def check_metadata(
        self,
        event_type: str,
        time: str,
        actor: JSON,
        command: JSON | None,
        actor_text: str | None = None,
    ) -> None:
        """Validate what the caller supplies for a batch (InvalidEvent naming ``event_type``).

        ``actor_text`` = ``canonical_json(actor)``, if the caller has it already.
        """
        if (
            type(time) is str
            and ISO_UTC_RE.match(time)
            and (
                command is None
                or (isinstance(command, dict) and isinstance(command.get("kind"), str))
            )
            and self._actor_ok(actor, actor_text)
        ):
            return
        errors: dict[str, Any] = {}
        if not isinstance(time, str) or not ISO_UTC_RE.match(time):
            errors["time"] = ["must be ISO-8601 UTC ending in Z"]
        if command is not None and not (
            isinstance(command, dict) and isinstance(command.get("kind"), str)
        ):
            errors["command"] = ["a command is null or a JSON object with a string 'kind'"]
        if not self._actor_ok(actor, actor_text):
            found = self._actor.validate(actor) if isinstance(actor, Mapping) else None
            errors["actor"] = found or ["must be an actor object"]
        if errors:
            raise InvalidEvent(event_type, 0, errors)

    def _actor_ok(self, actor: Any, text: str | None) -> bool:
        """Whether ``actor`` (a dict) passes ``ActorSchema``; memoised on its canonical text."""
        if not isinstance(actor, dict):
            return False
        if text is None:
            try:
                text = canonical_json(actor)
            except (TypeError, ValueError):  # not JSON data (or a cycle): never remembered
                return not self._actor.validate(actor)
        key = ("actor", text)
        if key not in self._memo:
            if self._actor.validate(actor):
                return False
            self._remember(key)
        return True

    def _remember(self, key: tuple[Any, ...]) -> None:
        if len(self._memo) >= MEMO_SIZE:
            self._memo.clear()
        self._memo[key] = True
