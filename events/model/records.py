"""Game records: creating a game with a committed secret seed, and revealing it.

Randomness anyone can audit: a game's secret seed (32 random bytes from
``secrets``, stored as hex in its own key) seeds the engine's
``SeededRandom(seed, rules_version)``. ``GameCreated`` publishes only the
commitment ``sha256(seed bytes)``; once the game has ended the application layer
appends ``SeedRevealed {seed}``, and a verifier can recompute every outcome.

The seed never appears in any read path before the end: only ``GameCreated``'s
commitment is an event, and :meth:`~events.redis_adapter.store.RedisEventStore.secret_seed`
is for the server's engine calls only.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from engine.game import Game
from engine.model import Event
from engine.rng import SeededRandom
from engine.table import TABLE_TYPES

GAME_CREATED = "GameCreated"
SEED_REVEALED = "SeedRevealed"
GAME_ENDED = "GameEnded"
RECORD_TYPES = TABLE_TYPES
"""Event types of the table around a game (``engine.table``): creation, seats,
start, seed reveal. The engine never sees them (replay skips them)."""

SEED_BYTES = 32


def new_seed() -> str:
    """A fresh secret seed: 32 random bytes from ``secrets``, as hex."""
    return secrets.token_hex(SEED_BYTES)


def commitment(seed: str) -> str:
    """The public commitment to ``seed`` (hex): SHA-256 of its bytes, as hex."""
    return hashlib.sha256(bytes.fromhex(seed)).hexdigest()


def engine_rng(seed: str, rules_version: str) -> SeededRandom:
    """The random source the engine draws from in this game."""
    return SeededRandom(bytes.fromhex(seed), rules_version)


def game_created(
    game: Game[Any],
    options: Mapping[str, Any],
    seats: int,
    seed: str,
    clock: Mapping[str, Any] | None = None,
    invite_hash: str | None = None,
    rematch_of: str | None = None,
) -> Event:
    """The ``GameCreated`` event (current schema version) for a new game of ``game``;
    ``clock`` (``engine.turnclock.check_clock``) only when the game has a turn clock,
    ``invite_hash`` (SHA-256 of the invite code, ``service.app.invites``) only when a
    seat needs an invite: public ``"invite_only": true``, the hash in the hidden part,
    seen by nobody while the game runs; ``rematch_of`` (public) only in a rematch of
    that finished game. Without any of them the event is exactly what it always was."""
    data: dict[str, Any] = {
        "game": game.name,
        "rules_version": game.rules_version,
        "options": dict(options),
        "seats": seats,
        "commitment": commitment(seed),
    }
    if clock is not None:
        data["clock"] = dict(clock)
    if rematch_of is not None:
        data["rematch_of"] = rematch_of
    if invite_hash is None:
        return Event(GAME_CREATED, data)
    data["invite_only"] = True
    return Event(GAME_CREATED, data, {"invite_hash": invite_hash}, ())


def timeout_rng(seed: str, game_id: str, version: int, seat: int) -> SeededRandom:
    """The random source of a bot deciding for ``seat`` after its ``TurnTimedOut`` at
    ``version``: HMAC(seed, "timeout|<game>|<version>|<seat>"). Secret while the game
    runs (nobody can predict the choice), recomputed by a verifier once the seed is out."""
    label = f"timeout|{game_id}|{version}|{seat}".encode()
    return SeededRandom(hmac.new(bytes.fromhex(seed), label, hashlib.sha256).digest(), "timeout")


def seed_revealed(seed: str) -> Event:
    """The ``SeedRevealed`` event; append it only after ``GameEnded``."""
    return Event(SEED_REVEALED, {"seed": seed})


def setup_events(
    game: Game[Any],
    options: Mapping[str, Any],
    seats: int,
    seed: str,
    clock: Mapping[str, Any] | None = None,
    invite_hash: str | None = None,
    rematch_of: str | None = None,
) -> list[Event]:
    """``GameCreated`` followed by the engine's setup events, drawn from the seed.

    ``options`` must already be validated (``game.validate_options``), ``clock`` too
    (``engine.turnclock.check_clock``); ``invite_hash`` and ``rematch_of``: see :func:`game_created`. Raises
    the engine's RuleViolation for a bad player count.
    """
    rng = engine_rng(seed, game.rules_version)
    return [game_created(game, options, seats, seed, clock, invite_hash, rematch_of), *game.setup(options, seats, rng)]


def check_creation(events: Sequence[Event], seed: str) -> None:
    """ValueError unless ``events`` start with a ``GameCreated`` committing to ``seed``."""
    if not events or events[0].type != GAME_CREATED:
        raise ValueError("a game's first event must be GameCreated")
    try:
        expected = commitment(seed)
    except (TypeError, ValueError) as exc:
        raise ValueError("the seed must be a hex string") from exc
    if events[0].data.get("commitment") != expected:
        raise ValueError("GameCreated does not commit to this seed")
