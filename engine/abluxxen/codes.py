"""Abluxxen's own RuleViolation codes (stable; listed in docs/rules/abluxxen.md).

The shared codes (``malformed_command``, ``unknown_command``, ``invalid_seat``,
``not_your_turn``, ``wrong_phase``, ``game_over``) live in :mod:`engine.errors`.
"""

INVALID_SET = "invalid_set"
"""The play's fields do not describe a set (no cards, or number/count mismatch)."""

CARDS_NOT_IN_HAND = "cards_not_in_hand"
"""The sender's hand does not hold the cards of the set."""

WRONG_VICTIM = "wrong_victim"
"""``take``/``leave`` names a seat that is not the victim being resolved."""

CARD_NOT_IN_DISPLAY = "card_not_in_display"
"""No card of that kind lies in the display."""

PILE_EMPTY = "pile_empty"
"""A draw from the pile while the pile is empty."""
