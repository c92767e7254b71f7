"""Prepared command sequences for the API bench: every request legal, every version fresh.

A load generator cannot ask the server for legal commands between two commands
without measuring that too, and it cannot guess them: dice and shuffles come from
each game's secret seed. The bench owns the Redis it runs on, so it reads each game's
seed and plays the game ahead in the engine -- the same ``decide`` the server will run
with the same random source -- recording ``(version, seat, command)``. Sent in order,
each command is exactly the one the server accepts at that version.

Each connection of the load gets games of its own (no two connections ever race on a
game), written as ``conn-<n>.tsv``: ``path<TAB>token<TAB>body`` per request.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.model import Event
from engine.registry import get_game
from engine.rng import SeededRandom
from engine.table import FINISHED, Table, evolve_table
from events.model.records import engine_rng
from service.app.application import Application


@dataclass(frozen=True, slots=True)
class Request:
    path: str
    token: str
    body: str

    def line(self) -> str:
        return f"{self.path}\t{self.token}\t{self.body}\n"


def game_requests(
    app: Application, game_name: str, players: int, pick_seed: bytes
) -> Iterator[Request]:
    """A new game with ``players`` seated people, then every command of it to the end."""
    game = get_game(game_name)
    game_id = app.create_game(game_name, {}, [None] * players)["game_id"]
    tokens = [app.join(game_id, f"player{i}").token for i in range(players)]
    table = app.tables.load(game_id)
    rng = engine_rng(app.store.secret_seed(game_id), game.rules_version)
    pick = SeededRandom(pick_seed + game_id.encode(), "bench-pick")
    while table.status != FINISHED:
        seat = min(game.to_act(table.state))
        legal = game.legal_commands(table.state, seat)
        command = legal[pick.randbelow(len(legal), str(table.version))]
        body = json.dumps(
            {"command": command, "expected_version": table.version}, separators=(",", ":")
        )
        yield Request(f"/v1/games/{game_id}/commands", tokens[seat], body)
        table = _fold(table, game.decide(table.state, seat, command, rng))


def _fold(table: Table, events: Sequence[Event]) -> Table:
    game = get_game(table.game)
    for event in events:
        table = evolve_table(game, table, event, table.version + 1, "")
    return table


def write_connection_files(
    app: Application,
    directory: Path,
    game_name: str,
    players: int,
    connections: int,
    per_connection: int,
) -> int:
    """``conn-<n>.tsv`` with at least ``per_connection`` requests each; returns how many games."""
    directory.mkdir(parents=True, exist_ok=True)
    games = 0
    for conn in range(connections):
        written = 0
        with (directory / f"conn-{conn}.tsv").open("w") as out:
            while written < per_connection:
                games += 1
                for request in game_requests(
                    app, game_name, players, f"{directory.name}-{conn}".encode()
                ):
                    out.write(request.line())
                    written += 1
    return games


def write_static_files(directory: Path, connections: int, request: Request) -> None:
    """One request per connection file (the bare endpoint's load cycles through it)."""
    directory.mkdir(parents=True, exist_ok=True)
    for conn in range(connections):
        (directory / f"conn-{conn}.tsv").write_text(request.line())
