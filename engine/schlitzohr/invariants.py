"""Invariants that random playouts check: after every event, and after every command."""

from __future__ import annotations

from collections import Counter

from engine.schlitzohr.material import COLOURS, EARS, EARS_PER_COLOUR, JOKERS_PER_SEAT
from engine.schlitzohr.state import EMPTY, State


def is_material_conserved(state: State) -> bool:
    """All material accounted for and consistent.

    16 ears, 4 per colour, on distinct non-blocked fields, ``occ`` the inverse of
    ``pos``; face-up ears stand on targets; ``home`` counts the face-up ears per
    colour; each seat holds 0..3 jokers and jokers held + used - returned = 3.
    Holds after every single event (see :func:`targets_settled` for what holds
    only between commands).
    """
    board, pos = state.board, state.pos
    if len(pos) != EARS or len(set(pos)) != EARS or any(board.blocked[f] for f in pos):
        return False
    if Counter(state.colour) != {c: EARS_PER_COLOUR for c in range(len(COLOURS))}:
        return False
    occupied = sum(1 for ear in state.occ if ear != EMPTY)
    if occupied != EARS or any(state.occ[f] != ear for ear, f in enumerate(pos)):
        return False
    on_target = {ear for ear, f in enumerate(pos) if board.target_colour[f] >= 0}
    if not state.revealed <= on_target:
        return False
    if state.home != tuple(
        sum(1 for e in state.revealed if state.colour[e] == c) for c in range(len(COLOURS))
    ):
        return False
    return all(
        0 <= left <= JOKERS_PER_SEAT and left + used - returned == JOKERS_PER_SEAT
        for left, used, returned in zip(
            state.jokers_left, state.jokers_used, state.jokers_returned, strict=True
        )
    )


def targets_settled(state: State) -> bool:
    """Every ear on a target field is face up and has that field's colour.

    Holds after every command, not after every event: an ``EarMoved`` onto a
    target precedes its ``EarRevealed``, and a wrong-colour ear stands on the
    target it reached until the ``EarRelocated`` that follows.
    """
    board, pos, colour = state.board, state.pos, state.colour
    on_target = {ear for ear, f in enumerate(pos) if board.target_colour[f] >= 0}
    return on_target == state.revealed and all(
        board.target_colour[pos[e]] == colour[e] for e in on_target
    )
