"""Games by name. The one place that knows which games exist."""

from __future__ import annotations

from functools import cache
from typing import Any

from engine.errors import UNKNOWN_GAME, RuleViolation
from engine.game import Game


@cache  # built once: every command looks games up several times
def _games() -> dict[str, Game[Any]]:
    # Imported lazily so that a game module may import engine helpers freely.
    from engine.abluxxen.game import GAME as ABLUXXEN
    from engine.schlitzohr.game import GAME as SCHLITZOHR

    return {g.name: g for g in (SCHLITZOHR, ABLUXXEN)}


def game_names() -> list[str]:
    """The registered game names, sorted."""
    return sorted(_games())


def get_game(name: str) -> Game[Any]:
    """The game called ``name``, or RuleViolation ``unknown_game``."""
    games = _games()
    try:
        return games[name]
    except (KeyError, TypeError):
        raise RuleViolation(UNKNOWN_GAME, f"no game named {name!r}", {"games": sorted(games)}) from None
