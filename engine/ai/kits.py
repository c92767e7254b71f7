"""The bot kit of every game, by game name."""

from __future__ import annotations

from engine.ai.kit import GameKit
from engine.errors import UNKNOWN_GAME, RuleViolation
from engine.registry import game_names


def kit_for(game_name: str) -> GameKit:
    """The kit of ``game_name``, or RuleViolation ``unknown_game``."""
    # Imported lazily, like the games in engine.registry.
    from engine.ai.abluxxen.kit import KIT as ABLUXXEN
    from engine.ai.schlitzohr.kit import KIT as SCHLITZOHR

    kits: dict[str, GameKit] = {"schlitzohr": SCHLITZOHR, "abluxxen": ABLUXXEN}
    try:
        return kits[game_name]
    except (KeyError, TypeError):
        raise RuleViolation(
            UNKNOWN_GAME, f"no game named {game_name!r}", {"games": game_names()}
        ) from None
