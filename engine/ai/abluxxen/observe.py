"""A seat's view of Abluxxen, parsed once into card counts the heuristics can use.

Everything comes from the JSON view (``engine.abluxxen.views.view``). The cards a
seat cannot see -- other hands and the draw pile -- are the deck minus every
card in sight: its own hand, all rows, the display, the discard pile and a set
in dispute. (Cards are reshuffled for every deal, so earlier deals play no part.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.abluxxen.cards import DECK_COUNTS, Counts, add, codes_from_json, counts_of, subtract
from engine.abluxxen.sets import CardSet
from engine.model import JSON


@dataclass(frozen=True, slots=True)
class Observation:
    """What one seat sees, with cards as counts (index 0 = jokers, 1..13 = numbers)."""

    seat: int
    players: int
    phase: str
    active: int
    hand: Counts
    hand_sizes: tuple[int, ...]
    rows: tuple[tuple[CardSet, ...], ...]
    display: Counts
    pile_size: int
    discard: Counts
    victim: int | None
    dispute: CardSet | None
    scores: tuple[int, ...]

    def unseen(self) -> Counts:
        """The cards in other hands and the pile, as one multiset."""
        seen = add(add(self.hand, self.display), self.discard)
        for row in self.rows:
            for played in row:
                seen = add(seen, played.counts())
        if self.dispute is not None:
            seen = add(seen, self.dispute.counts())
        return subtract(DECK_COUNTS, seen)

    def top(self, seat: int) -> CardSet | None:
        """The top set of ``seat``'s row (the one that can be abluxxed), if any."""
        row = self.rows[seat]
        return row[-1] if row else None


def observe(view: JSON) -> Observation:
    """Parse a seat's view. Raises ValueError for a spectator's view."""
    seat = view["seat"]
    if seat is None:
        raise ValueError("a bot needs a seat's view, not a spectator's")
    dispute = view["set_in_dispute"]
    return Observation(
        seat=seat,
        players=view["players"],
        phase=view["phase"],
        active=view["active"],
        hand=_counts(view["hand"]),
        hand_sizes=tuple(view["hand_sizes"]),
        rows=tuple(tuple(CardSet.from_json(s) for s in row) for row in view["rows"]),
        display=_counts(view["display"]),
        pile_size=view["pile_size"],
        discard=_counts(view["discard"]),
        victim=view["victim"],
        dispute=None if dispute is None else CardSet.from_json(dispute),
        scores=tuple(view["scores"]),
    )


def _counts(cards: Sequence[Any]) -> Counts:
    return counts_of(codes_from_json(cards))
