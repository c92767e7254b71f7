"""Turn-clock helpers for tests: parking a sweep between its steps, forging a decision."""

from __future__ import annotations

import pytest

from engine.registry import get_game
from engine.timeout import policy_decision
from events.model.records import engine_rng, timeout_rng
from service.app.application import Application
from service.app.timeouts import handle_due


class Parked(Exception):
    """Stops a sweep right after it recorded a timeout (as a killed sweeper would)."""


def park() -> None:
    raise Parked


def forge_decision(app: Application, game_id: str) -> int:
    """Record a due timeout, then append -- as a dishonest server would -- another legal
    command than the clock's bot chooses, with the very events the rules make of it: a
    well-formed, well-sealed history. Returns the forged decision's version."""
    with pytest.raises(Parked):
        handle_due(app, game_id, 10**15, between_steps=park)
    table = app.tables.load(game_id)
    assert table.clock is not None and table.clock.pending is not None
    seat, game = table.clock.pending, get_game(table.game)
    seed = app.seed(game_id)
    bot = timeout_rng(seed, game_id, table.version, seat)
    honest, _ = policy_decision(game, table.state, seat, table.clock.policy, bot, engine_rng(seed, game.rules_version))
    other = next(c for c in game.legal_commands(table.state, seat) if c != honest)
    events = game.decide(table.state, seat, other, engine_rng(seed, game.rules_version))
    app.decide_timed_out(game_id, table, seat, other, events)
    return table.version + 1
