"""What a turn clock's policy does for a seat that timed out. Pure: the application
(``service.app.timeouts``) and the audit (``events.audit.rerun``) call the same function,
so a verifier re-runs the decision exactly.

- ``bot:<level>``: the bot of that level chooses from the seat's *own* view and legal
  commands (``engine.ai.choose``; it never sees the state), with a random source the
  caller derives from the game's secret seed; the rules then decide that command.
- ``forfeit``: the seat forfeits (``engine.forfeit``): the game ends.

Raises ValueError for an unknown policy or a seat not to act; RuleViolation cannot
happen (a bot only ever chooses a legal command).
"""

from __future__ import annotations

from typing import Any

from engine import ai
from engine.forfeit import forfeit_events
from engine.game import Game
from engine.model import JSON, Event
from engine.rng import RandomSource
from engine.turnclock import BOT_POLICIES, FORFEIT


def policy_decision(
    game: Game[Any], state: Any, seat: int, policy: str, bot_rng: RandomSource, rules_rng: RandomSource
) -> tuple[JSON | None, list[Event]]:
    """The command made for ``seat`` (None for a forfeit) and the events it produces."""
    if policy == FORFEIT:
        return None, forfeit_events(game, state, seat)
    if policy not in BOT_POLICIES:
        raise ValueError(f"unknown timeout policy {policy!r}")
    legal = game.legal_commands(state, seat)
    if not legal:
        raise ValueError(f"seat {seat} has nothing to decide")
    level = policy.split(":", 1)[1]
    command = ai.choose(game.name, level, game.view(state, seat), legal, bot_rng)
    return command, game.decide(state, seat, command, rules_rng)
