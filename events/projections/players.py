"""Per-player totals over finished games: games played, games won, points.

A game counts once per player, when it has ended (``ReadModels.count_finished``); a
shared win counts as a win for each winner. A registered player's seats count for its
account; guests and bots count under their seat's name, compared exactly (case and
spaces matter).
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


def player_totals(client: Any, keys: ReadModelKeys, name: str, account: bool = False) -> PlayerTotals:
    """The totals of the registered player ``name`` (``account``), else of the guests and
    bots who sat under ``name``; ValueError if it is not a non-empty string."""
    if not isinstance(name, str) or not name:
        raise ValueError("a player name is a non-empty string")
    key = keys.account_totals(name) if account else keys.player_totals(name)
    games, wins, points = client.hmget(key, "games", "wins", "points")
    return PlayerTotals(name, int(games or 0), int(wins or 0), int(points or 0))
