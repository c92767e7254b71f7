"""How good a Schlitzohr state is for a seat: its projected lead, squashed into ``[0, 1]``.

A finished game scores its result (1 a sole win, 1/k a win shared by k, 0 a
loss). A running one projects every seat's final score in ears: ears home and
jokers kept, plus each face-down ear of the seat's colour weighted by the chance
that it still comes home -- high if the seat knows the ear and it is close to a
free target, low if the seat has never looked at it. Only the seat's own
knowledge in the state counts (its inspections there), so the evaluation never
credits a seat with a fact it could not act on.
"""

from __future__ import annotations

import math

from engine.ai.schlitzohr.distance import field_distances
from engine.ai.schlitzohr.heuristics import CLOSENESS, JOKER_VALUE
from engine.schlitzohr.state import State

KNOWN_EAR = 0.45
"""Chance that a face-down ear its owner knows comes home, far from any target."""
NEAR_BONUS = 0.45
"""Extra chance for a known ear on the doorstep of a free target (scaled by closeness)."""
UNKNOWN_EAR = 0.2
"""Chance that a face-down ear its owner has not looked at comes home."""
LEAD_SCALE = 1.0
"""A projected lead of this many ears is worth a win chance of about 73 %."""


def evaluate(state: State, seat: int) -> float:
    """The seat's projected chance to win (see the module docstring)."""
    if state.result is not None:
        winners = state.result.winners
        return 1.0 / len(winners) if seat in winners else 0.0
    projected = _projection(state)
    lead = projected[seat] - max(p for s, p in enumerate(projected) if s != seat)
    return 1.0 / (1.0 + math.exp(-lead / LEAD_SCALE))


def _projection(state: State) -> list[float]:
    """Every seat's projected final score, in ears."""
    dist = field_distances(state.board, state.occ)
    out = []
    for seat, colour in enumerate(state.seat_colour):
        value = state.home[colour] + JOKER_VALUE * state.jokers_left[seat]
        known = state.known[seat]
        for ear, field in enumerate(state.pos):
            if state.colour[ear] == colour and ear not in state.revealed:
                if ear in known:
                    value += KNOWN_EAR + NEAR_BONUS * CLOSENESS[dist[field]]
                else:
                    value += UNKNOWN_EAR
        out.append(value)
    return out
