"""The game's material and who owns which colour.

Colours are handled as indices into :data:`COLOURS` inside the engine (fast
comparisons) and as their names in every event and view (stable JSON).
"""

from __future__ import annotations

COLOURS: tuple[str, ...] = ("red", "blue", "green", "yellow")
COLOUR_INDEX: dict[str, int] = {name: i for i, name in enumerate(COLOURS)}
EARS_PER_COLOUR = 4
EARS = EARS_PER_COLOUR * len(COLOURS)
JOKERS_PER_SEAT = 3
MIN_PLAYERS = 2
MAX_PLAYERS = 4

POINTS_PER_EAR = 5
POINTS_PER_JOKER = 2

# Seats clockwise take these colours. Two players sit opposite each other (red,
# green); three players take the first three colours [house]; yellow (and blue
# with two players) are neutral decoys that score for nobody [house].
_SEAT_COLOURS: dict[int, tuple[int, ...]] = {
    2: (0, 2),
    3: (0, 1, 2),
    4: (0, 1, 2, 3),
}


def seat_colours(players: int) -> tuple[int, ...]:
    """The colour index of each seat. Raises KeyError outside 2..4 players."""
    return _SEAT_COLOURS[players]
