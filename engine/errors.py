"""Rule violations: the one error type the engine raises for bad input.

Guarantee: every command the engine rejects -- malformed, out of turn, or against
the rules -- raises :class:`RuleViolation` with a stable, machine-readable ``code``
(snake_case, never renamed once published) and a human message. The HTTP layer
passes the code through unchanged, so codes are part of the public contract.
Messages never mention hidden facts (a hand card, an ear colour, the pile order).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class RuleViolation(Exception):
    """A command or option the rules do not allow.

    ``code`` is stable; ``message`` is for people; ``details`` is JSON-safe extra
    context (for example the allowed range of an option). None of them may reveal
    information hidden from the seat that sent the command.
    """

    def __init__(self, code: str, message: str, details: Mapping[str, Any] | None = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.details: dict[str, Any] = dict(details or {})

    def to_json(self) -> dict[str, Any]:
        """The violation as plain JSON data."""
        return {"code": self.code, "message": self.message, "details": self.details}


# Codes shared by every game. Games add their own (documented in docs/rules/).
UNKNOWN_GAME = "unknown_game"
INVALID_OPTION = "invalid_option"
INVALID_PLAYER_COUNT = "invalid_player_count"
MALFORMED_COMMAND = "malformed_command"
UNKNOWN_COMMAND = "unknown_command"
INVALID_SEAT = "invalid_seat"
NOT_YOUR_TURN = "not_your_turn"
WRONG_PHASE = "wrong_phase"
GAME_OVER = "game_over"
SEAT_OUT = "seat_out"  # a seat that resigned or forfeited sends another resignation
