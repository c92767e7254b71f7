"""Whole game histories written the way the application writes them, for audit tests.

:func:`live_game` plays one game with random legal commands and returns its
batches -- creation (``GameCreated``, setup, bot seats), people joining (the first
one leaves and comes back), commands, ``SeedRevealed`` -- together with the live
table after every version, folded from the engine's own events as they were
decided. Two sinks write the batches: :func:`seal_batches` (pure, into stored
dicts with ``events.chain.sealing``) and :func:`write_batches` (through a real store).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.model import JSON, Event
from engine.registry import get_game
from engine.rng import SeededRandom
from engine.table import FINISHED, Table, evolve_table, game_started, seat_left, seat_taken
from events.chain.sealing import CommitKey, commit_digest, seal
from events.chain.verify import event_hash
from events.model import records
from events.model.canonical import ZERO_HASH
from events.model.envelope import SYSTEM, bot_actor, seat_actor
from events.model.port import GameRef
from events.redis_adapter.store import RedisEventStore
from events.schemas import default_registry
from support.clock import StepClock


@dataclass(frozen=True, slots=True)
class Batch:
    """One append: its events, actor and command."""

    events: list[Event]
    actor: JSON
    command: JSON | None = None


@dataclass(slots=True)
class LiveGame:
    """A played game: ``batches`` to write, ``tables[v - 1]`` = the live table at version v
    (``created`` left empty: the time is the writer's)."""

    game: str
    players: int
    seed: str
    batches: list[Batch] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)

    def add(self, batch: Batch) -> Table:
        engine = get_game(self.game)
        table = self.tables[-1] if self.tables else None
        for event in batch.events:
            table = evolve_table(engine, table, event, len(self.tables) + 1, "")
            self.tables.append(table)
        self.batches.append(batch)
        assert table is not None
        return table


def live_game(
    game_name: str,
    players: int,
    seed: str,
    *,
    persons: int = 1,
    options: Mapping[str, Any] | None = None,
    max_commands: int | None = None,
) -> LiveGame:
    """Play a game whose first ``persons`` seats are people and the rest bots.

    ``seed`` is the secret seed (hex); commands are picked from an independent stream.
    With ``max_commands`` the game may stop early (unfinished: no ``SeedRevealed``).
    """
    game = get_game(game_name)
    live = LiveGame(game_name, players, seed)
    checked = game.validate_options(options)
    created = records.setup_events(game, checked, players, seed)
    created += [seat_taken(s, f"random-bot-{s}", bot="random") for s in range(persons, players)]
    live.add(Batch(created + ([game_started()] if persons == 0 else []), SYSTEM))
    if persons:
        live.add(Batch([seat_taken(0, "ada", token_hash=_token(seed, 0))], seat_actor(0)))
        live.add(Batch([seat_left(0)], seat_actor(0)))
        for s in range(persons):
            events = [seat_taken(s, f"person{s}", token_hash=_token(seed, s))]
            live.add(Batch(events + ([game_started()] if s == persons - 1 else []), seat_actor(s)))
    _play(live, persons, max_commands)
    return live


def _play(live: LiveGame, persons: int, max_commands: int | None) -> None:
    game = get_game(live.game)
    rng = records.engine_rng(live.seed, game.rules_version)
    pick = SeededRandom(bytes.fromhex(live.seed), "pick")
    table = live.tables[-1]
    commands = 0
    while table.status != FINISHED and (max_commands is None or commands < max_commands):
        seat = min(game.to_act(table.state))
        legal = game.legal_commands(table.state, seat)
        command = legal[pick.randbelow(len(legal), f"pick/{commands}")]
        actor = seat_actor(seat) if seat < persons else bot_actor(seat)
        table = live.add(Batch(game.decide(table.state, seat, command, rng), actor, command))
        commands += 1
    if table.status == FINISHED:
        live.add(Batch([records.seed_revealed(live.seed)], SYSTEM))


def _token(seed: str, seat: int) -> str:
    return hashlib.sha256(f"{seed}/{seat}".encode()).hexdigest()


def seed_of(text: str) -> str:
    """A 32-byte hex seed derived from any text (deterministic test seeds)."""
    return hashlib.sha256(text.encode()).hexdigest()


def seal_batches(
    game_id: str, live: LiveGame, batches: Sequence[Batch] | None = None
) -> list[JSON]:
    """The stored dicts of ``batches`` (default: all of ``live``'s), sealed into one chain."""
    registry = default_registry()
    clock = StepClock()
    out: list[JSON] = []
    prev = ZERO_HASH
    for batch in live.batches if batches is None else batches:
        sealed = seal(
            game_id,
            batch.events,
            len(out) + 1,
            prev,
            time=clock(),
            actor=batch.actor,
            command=batch.command,
            schema_version=lambda t: registry.lookup(live.game, t).version,
            key=CommitKey(live.seed, game_id),
        )
        out += [json.loads(s.text) for s in sealed]
        prev = sealed[-1].hash
    return out


def write_batches(
    store: RedisEventStore, game_id: str, live: LiveGame, batches: Sequence[Batch] | None = None
) -> None:
    """Write ``batches`` (default: all) through ``store`` as the application does."""
    ref = GameRef(game_id, live.game)
    version = 0
    for batch in live.batches if batches is None else batches:
        if version == 0:
            store.create(ref, batch.events, live.seed, actor=batch.actor, command=batch.command)
        else:
            store.append(ref, batch.events, version, actor=batch.actor, command=batch.command)
        version += len(batch.events)


def rehash(history: Sequence[JSON]) -> list[JSON]:
    """``history`` with every ``prev_hash`` and ``hash`` recomputed: what an attacker who
    edits a history and re-seals it would produce (versions renumbered from 1 too).
    Seal-2 digests are recomputed too, keyed by the seed the (edited) history reveals
    at its end -- after the end the attacker knows it, like everyone."""
    last = history[-1] if history else {}
    data = last.get("data") if last.get("type") == "SeedRevealed" else None
    seed = data.get("seed") if isinstance(data, dict) else None
    if not (isinstance(seed, str) and _is_hex(seed)):
        seed = None  # an edit broke the reveal itself: no key to recompute digests with
    out: list[JSON] = []
    prev = ZERO_HASH
    for version, raw in enumerate(history, start=1):
        item = {**raw, "version": version, "prev_hash": prev}
        if "seal" in item and seed is not None:
            for part in ("private", "command"):
                value = item[part]
                item[f"{part}_digest"] = (
                    None
                    if value is None
                    else commit_digest(seed, item["game_id"], version, part, value)
                )
        item["hash"] = prev = event_hash(item)
        out.append(item)
    return out


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True
