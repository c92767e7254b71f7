"""Scores: +1 per card in a seat's row, -1 per card in its hand; totals and winners.

Card values never count. With several rounds the deal scores add up. Winners
have the highest total; ties go to the fewest cards in hand, counted **[house]**
as the sum of the hand sizes at the end of every deal; a remaining tie is a
shared win.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.abluxxen.state import DEALING, OVER, State


def deal_scores(state: State) -> tuple[int, ...]:
    """The current deal's score of every seat, as if it ended now."""
    return tuple(
        sum(played.size for played in state.rows[seat]) - state.hand_size(seat)
        for seat in range(state.players)
    )


def hand_sizes(state: State) -> tuple[int, ...]:
    return tuple(sum(hand) for hand in state.hands)


def current_scores(state: State) -> tuple[int, ...]:
    """Scores so far: finished deals plus the running deal (if one is running)."""
    if state.phase in (DEALING, OVER) or not state.rows:
        return state.banked
    return tuple(b + d for b, d in zip(state.banked, deal_scores(state)))


def winners(totals: Sequence[int], hand_cards: Sequence[int]) -> tuple[int, ...]:
    """The winning seats: best total, then fewest hand cards; ties share the win."""
    best = max(totals)
    leaders = [seat for seat, total in enumerate(totals) if total == best]
    fewest = min(hand_cards[seat] for seat in leaders)
    return tuple(seat for seat in leaders if hand_cards[seat] == fewest)
