"""The verifier accepts what the real application writes (lobby, people, bots, seed reveal)."""

from __future__ import annotations

import pytest

from engine.registry import get_game
from engine.rng import SeededRandom
from events.audit.export import export_history
from events.audit.verify import verify_lines
from events.model.redaction import SPECTATOR
from events.redis_adapter.store import RedisEventStore
from service.app.application import Application


@pytest.mark.parametrize("game_name,players", [("schlitzohr", 3), ("abluxxen", 4)])
def test_a_game_played_through_the_application_verifies(
    store: RedisEventStore, game_name: str, players: int
) -> None:
    app = Application(store)
    game_id = app.create_game(game_name, {}, [None] + ["random"] * (players - 1))["game_id"]
    person = app.join(game_id, "ada")
    game, pick = get_game(game_name), SeededRandom(b"pick", "test")
    table = app.tables.load(game_id)
    while table.status == "running":
        seat = min(game.to_act(table.state))
        legal = game.legal_commands(table.state, seat)
        command = legal[pick.randbelow(len(legal), str(table.version))]
        if seat == person.seat:
            app.submit(game_id, person.token, command, table.version)
        else:
            app.submit_as_bot(game_id, seat, command, table.version, f"k{table.version}")
        table = app.tables.load(game_id)
    exported = export_history(store, game_id, SPECTATOR)
    report = verify_lines(exported.lines)
    assert exported.complete and report.ok, report.discrepancy
    assert report.result == game.result(table.state).to_json()  # type: ignore[union-attr]
