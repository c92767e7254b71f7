"""Expected ratings computed straight from game histories with openskill -- written
independently of ``events/projections/rating_*`` (nothing is imported from there), so
a test compares the projection with the library, not with itself.

The rules restated (docs/api.md, "Ratings"): identities ``player:<account>`` and
``bot:<level>``; guests dropped; one seat per identity (its lowest); winners rank 1,
the others by score (higher first), equal keys share a rank; a game with fewer than two
identities is not rated; a seat that forfeited on time (``TurnTimedOut`` with policy
``forfeit``) or resigned (its command ``{"kind": "resign"}``) ranks last; games rated in (GameEnded time, game id) order; one
single-player team per identity in seat order; openskill PlackettLuce with defaults.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from openskill.models import PlackettLuce


@dataclass(frozen=True)
class Played:
    """One finished game as its public history shows it."""

    game_id: str
    game: str
    ended: str
    seats: list[str | None]
    scores: list[int]
    winners: list[int]
    forfeited: frozenset[int] = frozenset()


def played_from_events(game_id: str, events: Sequence[Mapping[str, Any]]) -> Played | None:
    """A finished game from its (public, after the end) event dicts; None if it did not end."""
    game, seats, ended, data = "", [], None, None
    forfeited: set[int] = set()
    for e in events:
        if e["type"] == "GameCreated":
            game, seats = e["data"]["game"], [None] * e["data"]["seats"]
        elif e["type"] == "SeatTaken":
            d = e["data"]
            who = None
            if d.get("bot"):
                who = "bot:" + d["bot"]
            elif d.get("guest") is False and d.get("account"):
                who = "player:" + d["account"]
            seats[d["seat"]] = who
        elif e["type"] == "SeatLeft":
            seats[e["data"]["seat"]] = None
        elif e["type"] == "TurnTimedOut" and e["data"].get("policy") == "forfeit":
            forfeited.add(e["data"]["seat"])
        elif e.get("command") == {"kind": "resign"}:
            forfeited.add(e["actor"]["seat"])
        elif e["type"] == "GameEnded":
            ended, data = e["time"], e["data"]
    if ended is None or data is None:
        return None
    scores, winners = list(data["scores"]), list(data["winners"])
    return Played(game_id, game, ended, seats, scores, winners, frozenset(forfeited))


def _micros(time: str) -> int:
    moment = datetime.strptime(time, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    return int(moment.timestamp()) * 1_000_000 + moment.microsecond


def _key(g: Played, seat: int) -> tuple[bool, bool, int]:
    """Higher is better: not forfeited, then a winner, then the score."""
    return (seat not in g.forfeited, seat in g.winners, g.scores[seat])


def expected(games: Iterable[Played]) -> dict[str, dict[str, tuple[float, float, int]]]:
    """``{game type: {identity: (mu, sigma, games)}}`` after rating ``games`` in order."""
    model = PlackettLuce()
    out: dict[str, dict[str, tuple[float, float, int]]] = {}
    for g in sorted(games, key=lambda g: (_micros(g.ended), g.game_id)):
        table = out.setdefault(g.game, {})
        order: list[tuple[str, int]] = []
        for seat, who in enumerate(g.seats):
            if who is None or any(who == w for w, _ in order):
                continue
            rank = 1 + sum(_key(g, s) > _key(g, seat) for s in range(len(g.scores)))
            order.append((who, rank))
        if len(order) < 2:
            continue
        teams = []
        for who, _ in order:
            mu, sigma, _n = table.get(who, (model.mu, model.sigma, 0))
            teams.append([model.rating(mu=mu, sigma=sigma)])
        new = model.rate(teams, ranks=[float(r) for _, r in order])
        for (who, _), team in zip(order, new, strict=True):
            table[who] = (team[0].mu, team[0].sigma, table.get(who, (0, 0, 0))[2] + 1)
    return out


def ordinal(mu: float, sigma: float) -> float:
    return PlackettLuce().rating(mu=mu, sigma=sigma).ordinal()
