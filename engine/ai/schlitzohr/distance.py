"""How many pips an ear needs to reach a free target field.

Any free target will do: an ear that ends a step on a target of another colour is
revealed and goes at once to a free target of its own colour, so for its owner
every free target field is a way home. Pips are spent field by field, so the
pips an ear needs are the length of a shortest path of unit moves over grey
fields that ends on a free target (a target may end a path, never lie on it).
"""

from __future__ import annotations

from functools import lru_cache

from engine.schlitzohr.board import Board
from engine.schlitzohr.state import EMPTY

FAR = 99
"""Distance of a field from which no free target can be reached."""


@lru_cache(maxsize=8)
def _tables(board: Board) -> tuple[tuple[tuple[int, ...], ...], tuple[bool, ...]]:
    """Per layout (cached): the unblocked neighbours of each field, and which fields are grey."""
    nbrs = tuple(
        tuple(ray[0] for ray in rays if ray and not board.blocked[ray[0]]) for rays in board.line
    )
    return nbrs, tuple(board.is_grey(f) for f in range(len(board.names)))


def field_distances(board: Board, occ: tuple[int, ...]) -> tuple[int, ...]:
    """Per field: pips an ear standing there needs to reach a free target.

    Free targets get 0, fields from which none can be reached FAR. Only which
    targets are free counts: other ears standing in the way are ignored -- any
    seat may move them, and the board is open enough that they cost a detour of a
    pip or two at most. That makes the table depend on the free targets alone, so
    it is cached: they change only when an ear comes home, while bots ask for the
    table at every decision of every rollout.
    """
    free = tuple(f for fields in board.targets_of for f in fields if occ[f] == EMPTY)
    return _distances(board, free)


@lru_cache(maxsize=256)
def _distances(board: Board, free: tuple[int, ...]) -> tuple[int, ...]:
    """Breadth-first search outwards from the ``free`` targets, level by level (so the
    first distance a field gets is its shortest), over grey fields only: a target
    may end a path, never lie on it."""
    nbrs, grey = _tables(board)
    dist = [FAR] * len(board.names)
    frontier = list(free)
    for field in frontier:
        dist[field] = 0
    level = 0
    while frontier:
        level += 1
        reached = []
        for field in frontier:
            for n in nbrs[field]:
                if dist[n] == FAR and grey[n]:
                    dist[n] = level
                    reached.append(n)
        frontier = reached
    return tuple(dist)
