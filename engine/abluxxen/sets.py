"""A played set of cards, its value, and the abluxx comparison.

A set is ``count`` cards of one ``number`` plus ``jokers`` jokers, which take that
number; or, with ``number`` None, jokers only, which count as 14 (above 13).
JSON form: ``{"number": 7 | null, "count": 2, "jokers": 1}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from engine.abluxxen.cards import EMPTY, JOKER, Counts, change

ALL_JOKER_VALUE = 14


class CardSet(NamedTuple):
    """One played set. Invariant (kept by ``decide``): either ``number`` is 1..13 and
    ``count >= 1``, or ``number`` is None, ``count == 0`` and ``jokers >= 1``."""

    number: int | None
    count: int  # type: ignore[assignment]  # shadows tuple.count: the JSON form's name
    jokers: int

    @property
    def size(self) -> int:
        return self.count + self.jokers

    @property
    def value(self) -> int:
        """The number the set shows; an all-joker set is worth 14."""
        return ALL_JOKER_VALUE if self.number is None else self.number

    def counts(self) -> Counts:
        """The set's cards as a multiset."""
        out = change(EMPTY, JOKER, self.jokers)
        return out if self.number is None else change(out, self.number, self.count)

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "count": self.count, "jokers": self.jokers}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> CardSet:
        return cls(raw["number"], raw["count"], raw["jokers"])


def abluxxes(new: CardSet, top: CardSet) -> bool:
    """Whether ``new`` abluxxes ``top``: same size, strictly higher value.

    Strictness means equal sets never abluxx, and an all-joker set (14) cannot
    abluxx another all-joker set.
    """
    return new.size == top.size and top.value < new.value


def victims_of(rows: Sequence[Sequence[CardSet]], active: int, new: CardSet) -> tuple[int, ...]:
    """The opponents ``new`` abluxxes, clockwise from the seat after ``active``.

    Only an opponent's top set (the last of its row) is compared; an empty row
    is never hit.
    """
    players = len(rows)
    hit = []
    for step in range(1, players):
        seat = (active + step) % players
        row = rows[seat]
        if row and abluxxes(new, row[-1]):
            hit.append(seat)
    return tuple(hit)
