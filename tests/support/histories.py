"""Writing real game histories into a store exactly as the application layer does.

- creating: one ``create`` batch (actor system): ``GameCreated``, the engine's setup
  events drawn from ``SeededRandom(seed, rules_version)``, a ``SeatTaken`` per bot
  seat, and ``PlayStarted`` if every seat is then taken;
- a person joining: ``[SeatTaken]`` (+ ``PlayStarted`` when the last seat fills),
  actor that seat, command null;
- each command: the events ``decide`` returned, actor seat or bot, command = the
  JSON command; after the batch with ``GameEnded``, ``[SeedRevealed]`` (actor system).

Commands are random legal ones, from a stream independent of the game's seed.
``on_append(game_id, version)`` runs after every append (e.g. ``events.redis_adapter.feed.publish``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.game import replay
from engine.playout import next_actor, random_policy
from engine.registry import get_game
from engine.rng import SeededRandom
from engine.table import game_started, seat_taken
from events.model import records
from events.model.envelope import SYSTEM, bot_actor, seat_actor
from events.model.port import EventStore, GameRef
from events.model.redaction import ADMIN

Player = tuple[str, str | None]
"""A seat's occupant: ``(name, bot level or None for a person)``."""

OnAppend = Callable[[str, int], object]


@dataclass(frozen=True, slots=True)
class Written:
    """What was written: the game's id, type, final version and whether it ended."""

    game_id: str
    game: str
    version: int
    finished: bool


def write_game(
    store: EventStore,
    game_id: str,
    name: str,
    players: Sequence[Player | None],
    *,
    seed: str,
    commands: int | None = None,
    on_append: OnAppend | None = None,
    accounts: frozenset[str] = frozenset(),
) -> Written:
    """Create ``game_id``, seat ``players`` (None = the seat stays free, so the game
    stays open) and play up to ``commands`` random commands (None = to the end).
    People named in ``accounts`` take their seats as registered players (``SeatTaken``
    with ``account``, ``guest: false``)."""
    notify = on_append or (lambda game_id, version: None)
    game = get_game(name)
    ref = GameRef(game_id, name)
    options = game.validate_options(None)
    events = records.setup_events(game, options, len(players), seed)
    bots = [seat_taken(i, p[0], bot=p[1]) for i, p in enumerate(players) if p and p[1]]
    people = [(i, p[0]) for i, p in enumerate(players) if p and not p[1]]
    free = sum(p is None for p in players)
    events += bots
    if not people and not free:
        events.append(game_started())
    version = store.create(ref, events, seed, actor=SYSTEM).last_version
    notify(game_id, version)
    for k, (seat, person) in enumerate(people):
        if person in accounts:
            token_hash = hashlib.sha256(f"{game_id}/{seat}".encode()).hexdigest()
            batch = [seat_taken(seat, person, token_hash=token_hash, account=person)]
        else:
            batch = [seat_taken(seat, person)]
        if k == len(people) - 1 and not free:
            batch.append(game_started())
        version = store.append(ref, batch, version, actor=seat_actor(seat)).last_version
        notify(game_id, version)
    if free:
        return Written(game_id, name, version, False)
    return _play(store, ref, players, seed, version, commands, notify)


def play_on(
    store: EventStore,
    game_id: str,
    players: Sequence[Player | None],
    *,
    seed: str,
    commands: int | None = None,
    on_append: OnAppend | None = None,
) -> Written:
    """Continue a running game written by :func:`write_game` (e.g. as a second writer)."""
    created = store.read_range(game_id, ADMIN, 1, 1)[0]
    ref = GameRef(game_id, created.data["game"])
    version = store.head(game_id).version
    notify = on_append or (lambda game_id, version: None)
    return _play(store, ref, players, seed, version, commands, notify)


def _play(
    store: EventStore,
    ref: GameRef,
    players: Sequence[Player | None],
    seed: str,
    version: int,
    commands: int | None,
    notify: OnAppend,
) -> Written:
    game = get_game(ref.type)
    history = store.read_range(ref.id, ADMIN, 1, version)
    state = replay(game, [e.to_event() for e in history if e.type not in records.RECORD_TYPES])
    rng = records.engine_rng(seed, game.rules_version)
    pick = SeededRandom(bytes.fromhex(seed), "histories")
    played = 0
    while game.result(state) is None and (commands is None or played < commands):
        seat = next_actor(game, state)
        command = random_policy({}, game.legal_commands(state, seat), pick, f"pick/{version}")
        new = game.decide(state, seat, command, rng)
        occupant = players[seat]
        actor = bot_actor(seat) if occupant and occupant[1] else seat_actor(seat)
        version = store.append(ref, new, version, actor=actor, command=dict(command)).last_version
        notify(ref.id, version)
        state = replay(game, new, state)
        played += 1
        if any(e.type == records.GAME_ENDED for e in new):
            reveal = [records.seed_revealed(seed)]
            version = store.append(ref, reveal, version, actor=SYSTEM).last_version
            notify(ref.id, version)
    return Written(ref.id, ref.type, version, game.result(state) is not None)


def seed_for(label: str) -> str:
    """A deterministic 32-byte seed (hex) for a test label."""
    return hashlib.sha256(label.encode()).hexdigest()
