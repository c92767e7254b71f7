"""One-move judgements of Schlitzohr positions, from one seat's observation.

Values are in *ears home* (5 points each) from the seat's point of view. Per ear:

- its *stake*: how much it is worth to the seat that the ear comes close to a free
  target. Only a seat that knows an ear is its own exploits its closeness, so an
  ear the seat knows to be its own counts fully, an ear an opponent has inspected
  counts against the seat with the probability that it is that opponent's, and
  ears their owner has not looked at count ``UNSEEN_FACTOR`` of that;
- its *reveal value*: the expected gain of turning it face up now (a step onto a
  target, or a placement) -- it goes home for whoever owns it;
- its *closeness*: how much of the stake its distance to a free target realises.

A gain for an opponent counts ``1 / (players - 1)`` of a gain for the seat: with
more opponents each one matters less to the seat's own chance to win.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from engine.ai.schlitzohr.distance import FAR, field_distances
from engine.ai.schlitzohr.observe import Observation
from engine.schlitzohr.state import EMPTY

UNSEEN_FACTOR = 0.5
"""Share of an ear's stake that counts while its owner has not looked at it."""

KNOWING_VALUE = 0.4
"""Worth, in ears, of knowing that one more face-down ear is your own."""

JOKER_VALUE = 0.4
"""Worth, in ears, of a joker kept until the end (2 points of 5)."""

CLOSENESS_SCALE = 3.5
"""Pips over which an ear's closeness to home falls by a factor e."""

CLOSENESS: tuple[float, ...] = (*(math.exp(-d / CLOSENESS_SCALE) for d in range(FAR)), 0.0)
"""Closeness by distance (1 on a target, 0 at FAR), as a table: it is read for
every step a bot weighs."""


@dataclass(frozen=True, slots=True)
class Judge:
    """The per-ear values of one observation and its field distances, computed once
    per decision (every step, placement and plan of that decision reads them)."""

    obs: Observation
    dist: tuple[int, ...]
    stake: tuple[float, ...]
    reveal: tuple[float, ...]

    @classmethod
    def of(cls, obs: Observation) -> Judge:
        values = _ear_values(obs)
        return cls(
            obs,
            field_distances(obs.board, obs.occ),
            tuple(stake for stake, _ in values),
            tuple(reveal for _, reveal in values),
        )

    def gain(self, ear: int, src: int, dst: int, dist: tuple[int, ...] | None = None) -> float:
        """The change in the seat's prospects when ``ear`` steps from ``src`` to ``dst``.

        ``dist``: the field distances before the step, if not those of the observation.
        """
        dist = self.dist if dist is None else dist
        stake = self.stake[ear]
        before = stake * CLOSENESS[dist[src]]
        if self.obs.board.target_colour[dst] >= 0:
            return self.reveal[ear] - before
        return stake * CLOSENESS[dist[dst]] - before

    def place_gain(self, ear: int) -> float:
        """The change in the seat's prospects when ``ear`` is placed (and so revealed)."""
        return self.reveal[ear] - self.stake[ear] * CLOSENESS[self.dist[self.obs.pos[ear]]]


def _ear_values(obs: Observation) -> list[tuple[float, float]]:
    """``(stake, reveal value)`` of every ear (see the module docstring)."""
    mine, weight = obs.my_colour, 1.0 / (obs.players - 1)
    opponents = [
        (colour, obs.inspected[seat])
        for seat, colour in enumerate(obs.seat_colour)
        if seat != obs.seat
    ]
    unknown = max(len(obs.unknown), 1)
    out = []
    for ear, seen in enumerate(obs.known):
        # P(ear has colour c): the counting belief if unknown, else 0 or 1.
        chance = [left / unknown for left in obs.remaining] if seen is None else None
        own = chance[mine] if chance is not None else float(seen == mine)
        stake = own * UNSEEN_FACTOR if chance is not None else own
        reveal = own
        for colour, looked in opponents:
            theirs = weight * (chance[colour] if chance is not None else float(seen == colour))
            reveal -= theirs
            stake -= theirs * (1.0 if ear in looked else UNSEEN_FACTOR)
        out.append((stake, reveal))
    return out


def own_known_face_down(obs: Observation) -> list[int]:
    """Face-down ears the seat knows to be its own."""
    mine = obs.my_colour
    return [ear for ear in obs.face_down() if obs.known[ear] == mine]


def expected_own_found(obs: Observation, looks: float) -> float:
    """Expected number of own ears among ``looks`` ears of unknown colour inspected."""
    if not obs.unknown:
        return 0.0
    return min(looks, len(obs.unknown)) * obs.remaining[obs.my_colour] / len(obs.unknown)


def steps(
    obs: Observation, pos: tuple[int, ...], occ: tuple[int, ...], up: frozenset[int], pips: int
) -> list[tuple[int, int]]:
    """Every legal ``(ear, destination)`` step of at most ``pips`` fields in a position.

    ``up`` are the face-up ears (they never move). Walks the board's precomputed
    rays exactly like the engine's move generator
    (``engine.schlitzohr.moves.legal_steps``), but on a hypothetical position, so a
    whole move can be planned ahead without building game states.
    """
    reach = obs.board.reach
    out: list[tuple[int, int]] = []
    for ear, src in enumerate(pos):
        if ear in up:
            continue
        for ray in reach[src]:
            for field in ray[:pips]:
                if occ[field] != EMPTY:
                    break
                out.append((ear, field))
    return out
