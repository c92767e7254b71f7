"""The material invariant: every one of the 109 cards is in exactly one place."""

from __future__ import annotations

from engine.abluxxen.cards import DECK_COUNTS, add, counts_of
from engine.abluxxen.state import State


def is_material_conserved(state: State) -> bool:
    """Whether hands + rows + display + pile + discard (+ the set in dispute) are
    exactly the deck, as a multiset, with no negative count anywhere.

    False for a state between ``GameStarted`` and the end of the first deal's
    events (no cards dealt yet), which no command ever leaves behind.
    """
    total = add(counts_of(state.order[state.pos :]), state.display)
    total = add(total, state.discard)
    for hand in state.hands:
        if min(hand) < 0:
            return False
        total = add(total, hand)
    for row in state.rows:
        for played in row:
            total = add(total, played.counts())
    if state.limbo is not None:
        total = add(total, state.limbo.counts())
    return total == DECK_COUNTS and min(state.display) >= 0 and min(state.discard) >= 0
