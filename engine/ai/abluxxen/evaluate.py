"""How good an Abluxxen state is for a seat: its projected lead, squashed into ``[0, 1]``.

A finished game scores its result (1 a sole win, 1/k a win shared by k, 0 a
loss). A running one projects every seat's total: the score so far (finished
deals plus the running deal as if it ended now), less a cost for every group of
equal numbers still in hand -- each needs a turn of its own to be played, and a
hand of many small groups is the one left holding cards when the deal ends.
"""

from __future__ import annotations

import math

from engine.abluxxen.cards import NUMBERS
from engine.abluxxen.scoring import current_scores
from engine.abluxxen.state import State

GROUP_COST = 1.0
"""Projected points lost per distinct number in hand."""
LEAD_SCALE = 4.0
"""A projected lead of this many points is worth a win chance of about 73 %."""


def evaluate(state: State, seat: int) -> float:
    """The seat's projected chance to win (see the module docstring)."""
    if state.result is not None:
        winners = state.result.winners
        return 1.0 / len(winners) if seat in winners else 0.0
    scores = current_scores(state)
    projected = [
        score - GROUP_COST * sum(1 for n in NUMBERS if hand[n])
        for score, hand in zip(scores, state.hands)
    ]
    lead = projected[seat] - max(p for s, p in enumerate(projected) if s != seat)
    return 1.0 / (1.0 + math.exp(-lead / LEAD_SCALE))
