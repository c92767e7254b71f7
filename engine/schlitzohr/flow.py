"""What happens without a command: reveals, relocations, and the ends of moves, turns and games.

``follow_up`` looks at the state *after* a command's own events and adds the
automatic ones, in this priority: the game ends at once when all ears of a
seat's colour are home (even mid-move: the rest of the move is void); a move
ends when its pips are spent or no ear has a legal step left; a turn ends after
an inspection, a placement, a finished move or an inspection of zero ears; the
turn cap ends the game at the end of the capped turn.
"""

from __future__ import annotations

from functools import reduce

from engine.model import Event
from engine.schlitzohr import events as ev
from engine.schlitzohr.evolve import evolve
from engine.schlitzohr.material import COLOURS
from engine.schlitzohr.moves import has_legal_step
from engine.schlitzohr.state import (
    DONE,
    INSPECT,
    MOVING,
    State,
    free_targets,
    next_seat,
    owned_colour_home,
    scores,
    winners,
)


def arrival(state: State, ear: int, dst: int) -> list[Event]:
    """Events for ``ear`` ending on ``dst`` (a step or a placement), given the state before.

    On a grey field: nothing. On a target: the ear is revealed; if its colour is
    not the field's, it goes to the first free target of its own colour in edge
    order. One always exists, because targets only ever hold ears of their colour.
    """
    board = state.board
    target = board.target_colour[dst]
    if target < 0:
        return []
    colour = state.colour[ear]
    events = [ev.ear_revealed(ear, board.names[dst], COLOURS[colour])]
    if colour != target:
        home = free_targets(state, colour)[0]
        events.append(ev.ear_relocated(ear, board.names[dst], board.names[home]))
    return events


def follow_up(before: State, events: list[Event]) -> list[Event]:
    """The automatic events after ``events``, produced from ``before`` (see module docstring)."""
    after = reduce(evolve, events, before)
    if owned_colour_home(after):
        return [game_ended(after, ev.ALL_EARS_HOME)]
    if after.phase == MOVING:
        if after.pips > 0 and has_legal_step(after):
            return []
        ended = [ev.move_ended(after.active, after.pips)] if after.pips > 0 else []
        return ended + end_of_turn(after)
    if after.phase == DONE or (after.phase == INSPECT and after.inspect_count == 0):
        return end_of_turn(after)
    return []  # waiting for the seat's next decision


def end_of_turn(state: State) -> list[Event]:
    """Pass the turn clockwise (skipping forfeited seats), or end the game if this was
    the capped turn."""
    if state.turn >= state.turn_cap:
        return [game_ended(state, ev.TURN_CAP)]
    return [ev.turn_ended(state.active, next_seat(state, state.active), state.turn + 1)]


def game_ended(state: State, reason: str) -> Event:
    """The GameEnded event with the scores of ``state``; the current turn counts as played.
    Forfeited seats keep their score but never win."""
    totals = scores(state)
    return ev.game_ended(reason, list(totals), list(winners(totals, state.forfeited)), state.turn)


def forfeit(state: State, seat: int) -> list[Event]:
    """``seat`` (still in) forfeits: ``SeatForfeited``; with fewer than two seats left in,
    the game ends (reason ``forfeit``). If ``seat`` is the active one -- a timeout, or a
    resignation on its own turn -- the turn passes on as after a finished turn (the rest
    of its move is void); any other seat only leaves, and the active seat plays on."""
    out = ev.seat_forfeited(seat)
    after = evolve(state, out)
    if state.players - len(after.forfeited) < 2:
        return [out, game_ended(after, ev.FORFEIT)]
    if seat != state.active:
        return [out]
    return [out, *end_of_turn(after)]
