"""Rating games with openskill's Plackett-Luce model: the only place that does the maths.

The model is openskill's ``PlackettLuce`` with its defaults (mu 25, sigma 25/3, beta
25/6, tau 25/300: sigma grows by tau before each game, so ratings keep moving). The
*display rating* is openskill's ``ordinal`` (mu - 3 sigma): it starts at 0 and rises as
the system becomes sure of a player. Each game is one call of ``rate`` with one
single-player team per rated identity, in seat order, and the identities' ranks.

Stored values are JSON with Python's float ``repr`` (shortest round trip), so a value
read back is bit-for-bit the float that was computed, and folding the same games in
the same order always writes the same bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

from engine.model import JSON

MODEL = PlackettLuce()
"""The rating model (defaults; changing them changes every rating: rebuild after)."""


@dataclass(frozen=True, slots=True)
class Rating:
    """One identity's rating after ``games`` rated games (``games`` 0 = the prior)."""

    mu: float
    sigma: float
    games: int

    @property
    def ordinal(self) -> float:
        return float(MODEL.rating(mu=self.mu, sigma=self.sigma).ordinal())

    def to_json(self) -> JSON:
        return {"games": self.games, "mu": self.mu, "sigma": self.sigma}

    def text(self) -> str:
        """The stored form (compact, keys sorted, floats as their shortest repr)."""
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, raw: Any) -> Rating:
        return cls(float(raw["mu"]), float(raw["sigma"]), int(raw["games"]))


PRIOR = Rating(float(MODEL.mu), float(MODEL.sigma), 0)
"""Every identity's rating before its first rated game."""


def rate(players: list[tuple[Rating, int]]) -> list[Rating]:
    """The ratings after one game of ``players`` (rating before, rank; 1 = best) --
    in the same order. At least two players."""
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r, _ in players]
    after = MODEL.rate(teams, ranks=[float(rank) for _, rank in players])
    return [
        Rating(float(team[0].mu), float(team[0].sigma), r.games + 1)
        for team, (r, _) in zip(after, players, strict=True)
    ]
