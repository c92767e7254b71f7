"""Typed failures of the event store. No HTTP here: ``service/`` maps these.

Every error is a :class:`StoreError`; each carries the facts a caller needs to
react (the current version for a retry, the broken version for an audit), never
hidden game content.
"""

from __future__ import annotations


class StoreError(Exception):
    """Base class of every event-store failure."""


class VersionConflict(StoreError):
    """The game is not at the version the caller decided on; nothing was written.

    ``current_version`` is the stored version: reload from there and decide again.
    """

    def __init__(self, game_id: str, expected_version: int, current_version: int) -> None:
        super().__init__(
            f"game {game_id!r} is at version {current_version}, not {expected_version}"
        )
        self.game_id = game_id
        self.expected_version = expected_version
        self.current_version = current_version


class IdempotencyKeyReused(StoreError):
    """An idempotency key was sent again with a different actor or command.

    The key already stands for another request; nothing was written.
    """

    def __init__(self, game_id: str, key: str) -> None:
        super().__init__(
            f"idempotency key {key!r} of game {game_id!r} was used for another request"
        )
        self.game_id = game_id
        self.key = key


class ChainBroken(StoreError):
    """The stored history fails verification; ``version`` is the first bad event.

    Raised by the verifier, and by ``append`` when the batch does not continue the
    stored head hash (``version`` is then the first version of the batch).
    """

    def __init__(self, game_id: str, version: int, reason: str) -> None:
        super().__init__(f"game {game_id!r}: hash chain broken at version {version}: {reason}")
        self.game_id = game_id
        self.version = version
        self.reason = reason


class InvalidEvent(StoreError):
    """An event (or its envelope) does not match its schema; nothing was written.

    ``errors`` is marshmallow's error dict; ``index`` the position in the batch.
    """

    def __init__(self, event_type: str, index: int, errors: object) -> None:
        super().__init__(f"event #{index} ({event_type}) is invalid: {errors}")
        self.event_type = event_type
        self.index = index
        self.errors = errors


class UnknownEventType(InvalidEvent):
    """No schema is registered for this (game type, event type)."""

    def __init__(self, game_type: str, event_type: str, index: int) -> None:
        super().__init__(event_type, index, f"no schema registered for {game_type}/{event_type}")
        self.game_type = game_type


class GameNotFound(StoreError):
    """The game has no stored events (or no secret seed)."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"no game {game_id!r}")
        self.game_id = game_id


class GameNotFinished(StoreError):
    """An operation reserved for finished games (revealing the seed) was refused."""

    def __init__(self, game_id: str) -> None:
        super().__init__(f"game {game_id!r} has not ended")
        self.game_id = game_id


class UpcastError(StoreError):
    """A stored event has a schema version no upcaster chain leads from."""


class SnapshotError(StoreError):
    """A snapshot could not be encoded, or a stored one could not be decoded."""


class ArchiveUnavailable(StoreError):
    """The archive of finished games (``events.archive``) could not be read: its database
    is unreachable or failed. Like a Redis outage, worth a retry (HTTP: 503)."""
