"""Step geometry: which steps are legal now, and why a given step is not.

A step moves one face-down ear (face down = on a grey field) 1..pips fields in a
straight line N/S/E/W. It may not pass through or end on a blocked or occupied
field and may not pass through a target field; it may end on a free target.
The generators walk the board's precomputed ``reach`` rays, so they do no
geometry at run time.
"""

from __future__ import annotations

from engine.errors import RuleViolation
from engine.schlitzohr.board import DIRECTIONS
from engine.schlitzohr.errors import (
    EAR_NOT_MOVABLE,
    STEP_BLOCKED,
    STEP_NOT_STRAIGHT,
    STEP_THROUGH_TARGET,
    STEP_TOO_LONG,
)
from engine.schlitzohr.state import EMPTY, State

_DIRECTION_INDEX = {delta: i for i, delta in enumerate(DIRECTIONS)}
"""A unit (file, rank) delta -> its index in the board's per-field ray tuples."""


def legal_steps(state: State, pips: int) -> list[tuple[int, tuple[int, ...]]]:
    """Per face-down ear (ascending), the fields a legal step of at most ``pips`` can end on.

    Ears without any legal step are left out. Returned as slices of the precomputed
    rays (no per-field objects), because this runs on every ``legal_commands``.
    """
    occ, reach, revealed = state.occ, state.board.reach, state.revealed
    out: list[tuple[int, tuple[int, ...]]] = []
    for ear, src in enumerate(state.pos):
        if ear in revealed:
            continue
        ends: tuple[int, ...] = ()
        for ray in reach[src]:
            stop = 0
            for field in ray[:pips]:
                if occ[field] != EMPTY:
                    break
                stop += 1
            if stop:
                ends += ray[:stop]
        if ends:
            out.append((ear, ends))
    return out


def has_legal_step(state: State) -> bool:
    """Whether any ear can take a step of length 1 (then some step of any length exists)."""
    occ, reach, revealed = state.occ, state.board.reach, state.revealed
    for ear, src in enumerate(state.pos):
        if ear not in revealed:
            for ray in reach[src]:
                if ray and occ[ray[0]] == EMPTY:
                    return True
    return False


def check_step(state: State, ear: int, dst: int) -> int:
    """The length of the step ``ear`` -> ``dst`` if legal now, else RuleViolation.

    Checks in this order: the ear is face down, the step is straight and at least
    one field long, it fits the pips left, then each field on the way (blocked or
    occupied: ``step_blocked``; a target before the end: ``step_through_target``).
    """
    if ear in state.revealed:
        raise RuleViolation(EAR_NOT_MOVABLE, "ears on target fields never move again", {"ear": ear})
    board = state.board
    src = state.pos[ear]
    (sf, sr), (df, dr) = board.coords(src), board.coords(dst)
    if (sf == df) == (sr == dr):  # both equal: no movement; neither: diagonal
        raise RuleViolation(
            STEP_NOT_STRAIGHT, "a step goes 1 or more fields straight N, S, E or W", {}
        )
    dist = abs(df - sf) + abs(dr - sr)
    if dist > state.pips:
        raise RuleViolation(
            STEP_TOO_LONG, f"only {state.pips} pips left", {"pips_left": state.pips}
        )
    direction = ((df > sf) - (df < sf), (dr > sr) - (dr < sr))  # unit delta, e.g. (0, -1)
    path = board.line[src][_DIRECTION_INDEX[direction]][:dist]
    for field in path:
        if board.blocked[field] or state.occ[field] != EMPTY:
            name = board.names[field]
            raise RuleViolation(STEP_BLOCKED, f"{name} is blocked or occupied", {"field": name})
        if field != dst and board.target_colour[field] >= 0:
            name = board.names[field]
            raise RuleViolation(
                STEP_THROUGH_TARGET, f"a step may not pass the target {name}", {"field": name}
            )
    return dist
