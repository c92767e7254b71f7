"""Who acts now with which command kinds, and the exact list of legal commands.

Guarantee: ``decide`` accepts a command iff it equals (as JSON) an element of
``legal_commands``, and ``to_act`` lists exactly the kinds that occur in it.
Inspect commands are listed once per set of ears, ids ascending -- the only
order ``decide`` accepts (other orders raise ``ears_not_ascending``), which keeps
the list exact without listing every permutation.

``legal_choices`` is the compact form (``engine.choices``): the inspect is one choice
of ``inspect_count`` of the face-down ears. ``legal_commands`` is its expansion, so the
two cannot disagree.
"""

from __future__ import annotations

from engine.choices import choice, expand
from engine.model import JSON
from engine.schlitzohr import specs
from engine.schlitzohr.moves import has_legal_step, legal_steps
from engine.schlitzohr.state import INSPECT, MOVING, SIX, START, State, face_down_ears, free_targets


def to_act(state: State) -> dict[int, tuple[str, ...]]:
    """``{active seat: kinds}`` while the game runs, ``{}`` once it is over."""
    if state.result is not None:
        return {}
    return {state.active: _kinds(state)}


def _kinds(state: State) -> tuple[str, ...]:
    phase = state.phase
    if phase == START:
        return (specs.ROLL, specs.JOKER) if state.jokers_left[state.active] else (specs.ROLL,)
    if phase == SIX:
        move = (specs.MOVE,) if has_legal_step(state) else ()
        place = (specs.PLACE,) if _can_place(state) else ()
        return (*move, specs.PEEK, *place)
    if phase == MOVING:
        return (specs.MOVE,)
    if phase == INSPECT:
        return (specs.INSPECT,)
    return ()  # transient phases never persist between commands


def _can_place(state: State) -> bool:
    # Both hold while the game runs (the seat's own colour is not all home, so a
    # face-down ear and a free own target exist); checked anyway for odd positions.
    return len(state.revealed) < len(state.pos) and bool(
        free_targets(state, state.seat_colour[state.active])
    )


def legal_commands(state: State, seat: int) -> list[JSON]:
    """Every command ``seat`` may send now (empty for other seats and after the end)."""
    return expand(legal_choices(state, seat))


def legal_choices(state: State, seat: int) -> list[JSON]:
    """The legal commands in compact form: the inspect as one k-of-n choice."""
    if state.result is not None or seat != state.active:
        return []
    phase = state.phase
    if phase == START:
        return [{"kind": kind} for kind in _kinds(state)]
    if phase == SIX:
        return [*_steps(state, 6), {"kind": specs.PEEK}, *_places(state)]
    if phase == MOVING:
        return _steps(state, state.pips)
    if phase == INSPECT:
        return [choice(specs.INSPECT, "ears", face_down_ears(state), state.inspect_count)]
    return []


def _steps(state: State, pips: int) -> list[JSON]:
    names = state.board.names
    move = specs.MOVE
    return [
        {"kind": move, "ear": ear, "to": names[to]}
        for ear, ends in legal_steps(state, pips)
        for to in ends
    ]


def _places(state: State) -> list[JSON]:
    names = state.board.names
    free = [names[f] for f in free_targets(state, state.seat_colour[state.active])]
    return [
        {"kind": specs.PLACE, "ear": ear, "to": to} for ear in face_down_ears(state) for to in free
    ]
