"""The event store as a port: the values it exchanges and the :class:`EventStore` protocol.

The application layer depends on this protocol only; ``events.redis_adapter.store`` is the
adapter (Redis Streams, standalone or Cluster). The contract tests in
``tests/integration/test_store_contract.py`` run against every backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.model import JSON, Event
from events.model.envelope import Envelope
from events.model.redaction import Viewer


@dataclass(frozen=True, slots=True)
class GameRef:
    """Which game to append to: its id and its game type (selects the event schemas)."""

    id: str
    type: str


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append wrote -- or, for a retried idempotency key, what the first call wrote.

    ``duplicate`` is True when nothing was written because the key was known;
    ``response`` is only ever set for a record written before slim records (the full
    answer the first call stored then); a current record holds no answer.
    """

    game_id: str
    first_version: int
    last_version: int
    head_hash: str
    duplicate: bool = False
    response: str | None = None
    time: str | None = None
    """The envelope time this append stamped (None for a duplicate: see the records)."""


@dataclass(frozen=True, slots=True)
class Head:
    """A game's current version and hash; ``ended_at`` = version of ``GameEnded``, if any."""

    version: int
    hash: str
    ended_at: int | None = None

    @property
    def finished(self) -> bool:
        return self.ended_at is not None


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A game state at ``version`` encoded by ``events.state.codec`` under ``rules_version``."""

    version: int
    rules_version: str
    payload: str


class EventReader(Protocol):
    """The read side: histories as a viewer may see them, heads, verification.

    Projectors and auditors need only this. Failure modes common to all methods:
    ``ValueError`` for an invalid game id, ``redis.RedisError`` (or the backend's
    equivalent) when the backend is down.
    """

    def head(self, game_id: str) -> Head:
        """The current head (version 0 and the zero hash for an unknown game)."""
        ...

    def read_range(
        self, game_id: str, viewer: Viewer, first: int, last: int | None = None
    ) -> list[Envelope]:
        """Versions ``first..last`` (inclusive; None = to the end) as ``viewer`` may see them."""
        ...

    def read_all(self, game_id: str, viewer: Viewer) -> list[Envelope]:
        """The whole history as ``viewer`` may see it ([] for an unknown game)."""
        ...

    def tail(
        self,
        game_id: str,
        after_version: int,
        viewer: Viewer,
        *,
        block_ms: int | None = None,
        count: int | None = None,
    ) -> list[Envelope]:
        """Events after ``after_version``, waiting up to ``block_ms`` for one ([] on timeout)."""
        ...

    def verify(self, game_id: str) -> int:
        """Check the hash chain; returns the verified version or raises ChainBroken."""
        ...

    def secret_seed(self, game_id: str) -> str:
        """The secret seed (hex) for the engine's random source. Never show it to a viewer;
        raises GameNotFound."""
        ...

    def load_snapshot(self, game_id: str) -> Snapshot | None:
        """The latest stored snapshot, if any. It holds hidden state: for the server's
        own loading (``events.state.loading``), never for a viewer."""
        ...


class EventStore(EventReader, Protocol):
    """Append-only, versioned, hash-chained event histories, one per game."""

    def create(
        self,
        game: GameRef,
        events: Sequence[Event],
        seed: str,
        *,
        actor: JSON,
        command: JSON | None = None,
        idempotency_key: str | None = None,
    ) -> AppendResult:
        """Start a game: ``events`` (``GameCreated`` first) at versions 1.. plus its secret seed.

        Raises VersionConflict if the id is taken, InvalidEvent for a bad event.
        """
        ...

    def append(
        self,
        game: GameRef,
        events: Sequence[Event],
        expected_version: int,
        idempotency_key: str | None = None,
        *,
        actor: JSON,
        command: JSON | None = None,
    ) -> AppendResult:
        """Append ``events`` as versions ``expected_version + 1``.. -- all or nothing.

        A known ``idempotency_key`` returns the first call's result and writes nothing
        (IdempotencyKeyReused if actor or command differ). Otherwise raises
        VersionConflict (carrying the current version) when the game is elsewhere,
        InvalidEvent when an event fails its schema, ChainBroken when the stored head
        is not the hash the batch continues.
        """
        ...

    def save_snapshot(self, game_id: str, snapshot: Snapshot) -> bool:
        """Store ``snapshot`` unless a newer one of the same rules exists; True if stored."""
        ...
