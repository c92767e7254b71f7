"""Per-player-name totals over finished games: games played, games won, points.

A game counts once per player name, when it has ended (``ReadModels.count_finished``);
a shared win counts as a win for each winner. Names are compared exactly (case
and spaces matter). People and bots alike are counted under their seat's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.model import JSON
from events.projections.keys import ReadModelKeys


@dataclass(frozen=True, slots=True)
class PlayerTotals:
    """A player's totals (all zero for a name that never finished a game)."""

    name: str
    games: int
    wins: int
    points: int

    def to_json(self) -> JSON:
        return {"name": self.name, "games": self.games, "wins": self.wins, "points": self.points}


def player_totals(client: Any, keys: ReadModelKeys, name: str) -> PlayerTotals:
    """The totals of ``name``; ValueError if it is not a non-empty string."""
    if not isinstance(name, str) or not name:
        raise ValueError("a player name is a non-empty string")
    games, wins, points = client.hmget(keys.player_totals(name), "games", "wins", "points")
    return PlayerTotals(name, int(games or 0), int(wins or 0), int(points or 0))
