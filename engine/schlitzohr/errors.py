"""Schlitzohr's own RuleViolation codes (stable; documented in docs/rules/schlitzohr.md).

The shared codes (malformed_command, unknown_command, invalid_seat, not_your_turn,
wrong_phase, game_over, ...) live in :mod:`engine.errors`.
"""

NO_JOKERS_LEFT = "no_jokers_left"
UNKNOWN_EAR = "unknown_ear"
UNKNOWN_FIELD = "unknown_field"
EAR_NOT_MOVABLE = "ear_not_movable"
STEP_NOT_STRAIGHT = "step_not_straight"
STEP_TOO_LONG = "step_too_long"
STEP_BLOCKED = "step_blocked"
STEP_THROUGH_TARGET = "step_through_target"
EAR_FACE_UP = "ear_face_up"
NOT_OWN_TARGET = "not_own_target"
TARGET_NOT_FREE = "target_not_free"
WRONG_INSPECT_COUNT = "wrong_inspect_count"
DUPLICATE_EAR = "duplicate_ear"
EARS_NOT_ASCENDING = "ears_not_ascending"
