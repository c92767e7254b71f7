"""Cards, the deck and multisets of cards.

Internally a card is an int *code*: ``JOKER`` (0) or a number 1..13. In JSON a
card is the int 1..13 or the string ``"X"`` for a joker -- a stable public form.

Hands, the display and the discard pile are multisets stored as ``Counts``: a
tuple of 14 counts indexed by code (index 0 = jokers). Counts are cheap to copy,
compare and enumerate, which keeps ``decide`` and ``legal_commands`` fast.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

Counts = tuple[int, ...]

JOKER = 0
JOKER_JSON = "X"
NUMBERS = range(1, 14)
CODES = range(14)
COPIES_PER_NUMBER = 8
JOKER_COPIES = 5

DECK_COUNTS: Counts = (JOKER_COPIES,) + (COPIES_PER_NUMBER,) * len(NUMBERS)
DECK_SIZE = sum(DECK_COUNTS)  # 109
EMPTY: Counts = (0,) * len(CODES)

# JSON order of a sorted list of cards: numbers ascending, jokers last.
_JSON_ORDER = (*NUMBERS, JOKER)


def deck() -> list[int]:
    """The 109 card codes in a fixed order (jokers first), before shuffling."""
    return [code for code in CODES for _ in range(DECK_COUNTS[code])]


def card_to_json(code: int) -> int | str:
    """The JSON form of a card code."""
    return JOKER_JSON if code == JOKER else code


def card_from_json(raw: Any) -> int | None:
    """The code of a JSON card, or None if ``raw`` is not a card (bools are not)."""
    if raw == JOKER_JSON and isinstance(raw, str):
        return JOKER
    if isinstance(raw, int) and not isinstance(raw, bool) and 1 <= raw <= 13:
        return raw
    return None


def counts_of(codes: Iterable[int]) -> Counts:
    """The multiset of ``codes`` as counts."""
    out = [0] * len(CODES)
    for code in codes:
        out[code] += 1
    return tuple(out)


def counts_to_json(counts: Counts) -> list[int | str]:
    """The cards of a multiset as a sorted JSON list (numbers ascending, jokers last)."""
    return [card_to_json(code) for code in _JSON_ORDER for _ in range(counts[code])]


def codes_to_json(codes: Iterable[int]) -> list[int | str]:
    """A sequence of codes as JSON cards, order kept."""
    return [card_to_json(code) for code in codes]


def codes_from_json(raw: Iterable[Any]) -> list[int]:
    """JSON cards from a trusted event as codes. Raises ValueError on a non-card."""
    out = []
    for item in raw:
        code = card_from_json(item)
        if code is None:
            raise ValueError(f"not a card: {item!r}")
        out.append(code)
    return out


def add(a: Counts, b: Counts) -> Counts:
    """The multiset union ``a + b``."""
    return tuple(x + y for x, y in zip(a, b))


def subtract(a: Counts, b: Counts) -> Counts:
    """``a - b``; the caller guarantees ``b`` is contained in ``a``."""
    return tuple(x - y for x, y in zip(a, b))


def change(counts: Counts, code: int, delta: int) -> Counts:
    """``counts`` with ``delta`` more (or fewer) cards of ``code``."""
    out = list(counts)
    out[code] += delta
    return tuple(out)
