"""The immutable game state and small read-only queries on it.

The state holds the whole truth, hidden colours included; :mod:`views` decides
what a viewer may see of it. It is a frozen dataclass of ints, tuples and
frozensets, so ``evolve`` builds a new one with :func:`updated` and ``decide``
can never mutate it.

Invariants (see :mod:`engine.schlitzohr.invariants`): ``occ`` is the inverse of
``pos``; ``home[c]`` counts the face-up ears of colour ``c``; between commands an
ear is face up (``revealed``) exactly when it stands on a target field, and then
on a target of its own colour.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.frozen import replacer
from engine.model import Result
from engine.schlitzohr.board import Board
from engine.schlitzohr.material import EARS_PER_COLOUR, POINTS_PER_EAR, POINTS_PER_JOKER

# Phases of a turn. START: roll or joker. SIX: a 6 was rolled, choose move, peek or
# place. MOVING: pips left to spend in steps. INSPECT: choose ears to look at.
# DONE: transient, the turn's action is over and a TurnEnded/GameEnded follows in
# the same batch of events. OVER: the game has ended.
START = "start"
SIX = "six"
MOVING = "moving"
INSPECT = "inspect"
DONE = "done"
OVER = "over"

EMPTY = -1
"""``occ`` value of a field without an ear."""


@dataclass(frozen=True, slots=True)
class State:
    """Everything about a running or finished game (see the module docstring)."""

    board: Board
    players: int
    turn_cap: int
    joker_six_returns: bool
    seat_colour: tuple[int, ...]  # colour index per seat
    colour: tuple[int, ...]  # true colour index per ear id -- hidden during play
    pos: tuple[int, ...]  # field index per ear id
    occ: tuple[int, ...]  # ear id per field index, EMPTY if none
    revealed: frozenset[int]  # ear ids face up (= on target fields)
    known: tuple[frozenset[int], ...]  # per seat: ear ids it has inspected
    home: tuple[int, ...]  # per colour: ears on target fields
    jokers_left: tuple[int, ...]
    jokers_used: tuple[int, ...]
    jokers_returned: tuple[int, ...]
    turn: int  # 1-based number of the current turn (every seat's turn counts)
    active: int
    phase: str
    pips: int  # pips left to move (MOVING, SIX)
    inspect_count: int  # ears to choose (INSPECT)
    last_roll: tuple[str, int] | None  # (purpose, value) of the latest die roll
    result: Result | None
    forfeited: frozenset[int] = frozenset()  # seats out of the game (turn clocks, docs/rules)


updated = replacer(State)
"""``dataclasses.replace`` for a State, without its per-field introspection
(``evolve`` runs it for every event of every playout). Unknown names raise KeyError."""


def face_down_ears(state: State) -> list[int]:
    """Ear ids still face down, ascending. Face down means on a grey field."""
    revealed = state.revealed
    return [ear for ear in range(len(state.pos)) if ear not in revealed]


def free_targets(state: State, colour: int) -> list[int]:
    """Free target fields of ``colour``, in the layout's edge order."""
    occ = state.occ
    return [f for f in state.board.targets_of[colour] if occ[f] == EMPTY]


def seat_score(state: State, seat: int) -> int:
    """5 per ear of the seat's colour on a target field, 2 per unused joker."""
    return (
        POINTS_PER_EAR * state.home[state.seat_colour[seat]]
        + POINTS_PER_JOKER * state.jokers_left[seat]
    )


def scores(state: State) -> tuple[int, ...]:
    """Every seat's score so far."""
    return tuple(seat_score(state, seat) for seat in range(state.players))


def winners(totals: tuple[int, ...], out: frozenset[int] = frozenset()) -> tuple[int, ...]:
    """The seats with the highest total; equal totals share the win. Seats in ``out``
    (forfeited) never win."""
    best = max(total for seat, total in enumerate(totals) if seat not in out)
    return tuple(seat for seat, total in enumerate(totals) if total == best and seat not in out)


def next_seat(state: State, seat: int) -> int:
    """The seat after ``seat`` clockwise that has not forfeited (its turns are skipped)."""
    for step in range(1, state.players + 1):
        candidate = (seat + step) % state.players
        if candidate not in state.forfeited:
            return candidate
    return seat  # unreachable in play: a game with fewer than two seats left has ended


def owned_colour_home(state: State) -> bool:
    """Whether all ears of some seat's colour stand on targets (neutral colours never count)."""
    return any(state.home[colour] == EARS_PER_COLOUR for colour in state.seat_colour)
