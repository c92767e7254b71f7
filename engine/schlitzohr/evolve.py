"""``evolve``: the state after one event. Pure, never draws, trusts its input.

Events come from ``setup``/``decide``, so handlers do not re-check rules; an
unknown event type raises ValueError (a corrupted or foreign history).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.model import Event, Result
from engine.schlitzohr import events as ev
from engine.schlitzohr.board import LAYOUTS
from engine.schlitzohr.material import COLOUR_INDEX, JOKERS_PER_SEAT
from engine.schlitzohr.specs import JOKER_SIX_RETURNS, LAYOUT, TURN_CAP
from engine.schlitzohr.state import DONE, EMPTY, INSPECT, MOVING, OVER, SIX, START, State, updated


def initial_state(event: Event) -> State:
    """The state a ``GameSetUp`` event describes. Raises ValueError for any other event."""
    if event.type != ev.GAME_SET_UP or event.private is None:
        raise ValueError(f"a schlitzohr history starts with {ev.GAME_SET_UP}, not {event.type}")
    data, options = event.data, event.data["options"]
    board = LAYOUTS[options[LAYOUT]]
    players = data["players"]
    pos = tuple(board.index[name] for name in data["ears"])
    occ = [EMPTY] * len(board.names)
    for ear, field in enumerate(pos):
        occ[field] = ear
    zeros = (0,) * players
    return State(
        board=board,
        players=players,
        turn_cap=options[TURN_CAP],
        joker_six_returns=options[JOKER_SIX_RETURNS],
        seat_colour=tuple(COLOUR_INDEX[name] for name in data["seat_colours"]),
        colour=tuple(COLOUR_INDEX[name] for name in event.private["colours"]),
        pos=pos,
        occ=tuple(occ),
        revealed=frozenset(),
        known=(frozenset(),) * players,
        home=(0,) * len(board.targets_of),
        jokers_left=(JOKERS_PER_SEAT,) * players,
        jokers_used=zeros,
        jokers_returned=zeros,
        turn=1,
        active=data["first_seat"],
        phase=START,
        pips=0,
        inspect_count=0,
        last_roll=None,
        result=None,
    )


def evolve(state: State | None, event: Event) -> State:
    """The state after ``event`` (``state=None``: the game's first event)."""
    if state is None:
        return initial_state(event)
    handler = _HANDLERS.get(event.type)
    if handler is None:
        raise ValueError(f"unknown schlitzohr event type {event.type!r}")
    return handler(state, event)


def _put(state: State, ear: int, field_name: str, **changes: Any) -> State:
    """``ear`` moved to the named field (pos and occ kept inverse), plus ``changes``."""
    dst = state.board.index[field_name]
    src = state.pos[ear]
    pos = list(state.pos)
    pos[ear] = dst
    occ = list(state.occ)
    occ[src] = EMPTY
    occ[dst] = ear
    return updated(state, pos=tuple(pos), occ=tuple(occ), **changes)


def _bump(values: tuple[int, ...], index: int, delta: int) -> tuple[int, ...]:
    """``values`` with ``delta`` added at ``index``."""
    bumped = list(values)
    bumped[index] += delta
    return tuple(bumped)


def _die_rolled(state: State, event: Event) -> State:
    purpose, value = event.data["purpose"], event.data["value"]
    roll = (purpose, value)
    if purpose == ev.ROLL_TURN:
        return updated(state, phase=SIX if value == 6 else MOVING, pips=value, last_roll=roll)
    # Peek or joker: inspect as many as rolled, capped at the face-down ears.
    count = min(value, len(state.pos) - len(state.revealed))
    return updated(state, phase=INSPECT, pips=0, inspect_count=count, last_roll=roll)


def _ear_moved(state: State, event: Event) -> State:
    data = event.data
    return _put(state, data["ear"], data["to"], phase=MOVING, pips=state.pips - data["pips"])


def _ear_placed(state: State, event: Event) -> State:
    return _put(state, event.data["ear"], event.data["to"], phase=DONE, pips=0)


def _ear_revealed(state: State, event: Event) -> State:
    ear = event.data["ear"]
    home = _bump(state.home, state.colour[ear], 1)
    return updated(state, revealed=state.revealed | {ear}, home=home)


def _ear_relocated(state: State, event: Event) -> State:
    return _put(state, event.data["ear"], event.data["to"])


def _ears_inspected(state: State, event: Event) -> State:
    seat = event.data["seat"]
    known = list(state.known)
    known[seat] = known[seat] | frozenset(event.data["ears"])
    return updated(state, known=tuple(known), phase=DONE, inspect_count=0)


def _joker_used(state: State, event: Event) -> State:
    seat = event.data["seat"]
    return updated(
        state,
        jokers_left=_bump(state.jokers_left, seat, -1),
        jokers_used=_bump(state.jokers_used, seat, 1),
    )


def _joker_returned(state: State, event: Event) -> State:
    seat = event.data["seat"]
    return updated(
        state,
        jokers_left=_bump(state.jokers_left, seat, 1),
        jokers_returned=_bump(state.jokers_returned, seat, 1),
    )


def _move_ended(state: State, event: Event) -> State:
    return updated(state, phase=DONE, pips=0)


def _turn_ended(state: State, event: Event) -> State:
    data = event.data
    return updated(
        state, active=data["next_seat"], turn=data["turn"], phase=START, pips=0, inspect_count=0
    )


def _seat_forfeited(state: State, event: Event) -> State:
    return updated(state, forfeited=state.forfeited | {event.data["seat"]})


def _game_ended(state: State, event: Event) -> State:
    data = event.data
    result = Result(tuple(data["scores"]), tuple(data["winners"]), data["reason"], data["turns"])
    return updated(state, result=result, phase=OVER, pips=0, inspect_count=0)


_HANDLERS: dict[str, Callable[[State, Event], State]] = {
    ev.DIE_ROLLED: _die_rolled,
    ev.EAR_MOVED: _ear_moved,
    ev.EAR_PLACED: _ear_placed,
    ev.EAR_REVEALED: _ear_revealed,
    ev.EAR_RELOCATED: _ear_relocated,
    ev.EARS_INSPECTED: _ears_inspected,
    ev.JOKER_USED: _joker_used,
    ev.JOKER_RETURNED: _joker_returned,
    ev.MOVE_ENDED: _move_ended,
    ev.TURN_ENDED: _turn_ended,
    ev.GAME_ENDED: _game_ended,
    ev.SEAT_FORFEITED: _seat_forfeited,
}
