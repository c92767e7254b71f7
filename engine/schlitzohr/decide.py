"""``decide``: the events a command produces, or a RuleViolation.

Every command is checked in the same order -- its kind, the seat, the game not
being over, the turn, the command's fields, the phase, then the rules -- and the
first problem found is reported. A handler emits the command's own events (a
reveal and relocation included); ``flow.follow_up`` then adds what happens
without a command: the end of a move, of a turn or of the game. ``decide`` never
mutates ``state`` and raises nothing but RuleViolation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.commands import command_kind, exact_fields
from engine.errors import GAME_OVER, INVALID_SEAT, NOT_YOUR_TURN, WRONG_PHASE, RuleViolation
from engine.model import Command, Event
from engine.rng import RandomSource, roll_die
from engine.schlitzohr import events as ev
from engine.schlitzohr import specs
from engine.schlitzohr.errors import (
    EAR_FACE_UP,
    NO_JOKERS_LEFT,
    NOT_OWN_TARGET,
    TARGET_NOT_FREE,
    WRONG_INSPECT_COUNT,
)
from engine.schlitzohr.flow import arrival, follow_up
from engine.schlitzohr.material import COLOURS
from engine.schlitzohr.moves import check_step
from engine.schlitzohr.parse import ear_id, ear_list, field_index
from engine.schlitzohr.state import EMPTY, INSPECT, MOVING, SIX, START, State

Handler = Callable[[State, int, Command, RandomSource], list[Event]]


def decide(state: State, seat: int, command: Any, rng: RandomSource) -> list[Event]:
    """The events of ``command`` sent by ``seat``; see the module docstring."""
    kind = command_kind(command, specs.KINDS)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players:
        raise RuleViolation(INVALID_SEAT, "no such seat in this game", {"players": state.players})
    if state.result is not None:
        raise RuleViolation(GAME_OVER, "the game has ended", {})
    if seat != state.active:
        raise RuleViolation(
            NOT_YOUR_TURN, f"it is seat {state.active}'s turn", {"active_seat": state.active}
        )
    events = _HANDLERS[kind](state, seat, command, rng)
    return events + follow_up(state, events)


def _require_phase(state: State, kind: str, *phases: str) -> None:
    if state.phase not in phases:
        raise RuleViolation(WRONG_PHASE, f"{kind!r} is not allowed now", {"phase": state.phase})


def _roll(state: State, seat: int, command: Command, rng: RandomSource) -> list[Event]:
    exact_fields(command)
    _require_phase(state, specs.ROLL, START)
    return [ev.die_rolled(seat, roll_die(rng, f"t{state.turn}/roll"), ev.ROLL_TURN)]


def _joker(state: State, seat: int, command: Command, rng: RandomSource) -> list[Event]:
    exact_fields(command)
    _require_phase(state, specs.JOKER, START)
    left = state.jokers_left[seat]
    if left == 0:
        raise RuleViolation(NO_JOKERS_LEFT, "you have no jokers left", {})
    value = roll_die(rng, f"t{state.turn}/joker")
    events = [ev.joker_used(seat, left - 1), ev.die_rolled(seat, value, ev.ROLL_JOKER)]
    if value == 6 and state.joker_six_returns:
        events.append(ev.joker_returned(seat, left))
    return events


def _peek(state: State, seat: int, command: Command, rng: RandomSource) -> list[Event]:
    exact_fields(command)
    _require_phase(state, specs.PEEK, SIX)
    return [ev.die_rolled(seat, roll_die(rng, f"t{state.turn}/peek"), ev.ROLL_PEEK)]


def _move(state: State, seat: int, command: Command, rng: RandomSource) -> list[Event]:
    exact_fields(command, "ear", "to")
    ear, dst = ear_id(state, command["ear"], "ear"), field_index(state, command, "to")
    _require_phase(state, specs.MOVE, SIX, MOVING)
    pips = check_step(state, ear, dst)
    names = state.board.names
    return [
        ev.ear_moved(seat, ear, names[state.pos[ear]], names[dst], pips),
        *arrival(state, ear, dst),
    ]


def _place(state: State, seat: int, command: Command, rng: RandomSource) -> list[Event]:
    exact_fields(command, "ear", "to")
    ear, dst = ear_id(state, command["ear"], "ear"), field_index(state, command, "to")
    _require_phase(state, specs.PLACE, SIX)
    if ear in state.revealed:
        raise RuleViolation(EAR_FACE_UP, "only a face-down ear may be placed", {"ear": ear})
    if state.board.target_colour[dst] != state.seat_colour[seat]:
        raise RuleViolation(NOT_OWN_TARGET, "place onto a target field of your own colour", {})
    if state.occ[dst] != EMPTY:
        raise RuleViolation(TARGET_NOT_FREE, "that target field is taken", {})
    names = state.board.names
    return [ev.ear_placed(seat, ear, names[state.pos[ear]], names[dst]), *arrival(state, ear, dst)]


def _inspect(state: State, seat: int, command: Command, rng: RandomSource) -> list[Event]:
    exact_fields(command, "ears")
    ears = ear_list(state, command, "ears")
    _require_phase(state, specs.INSPECT, INSPECT)
    if len(ears) != state.inspect_count:
        count = state.inspect_count
        raise RuleViolation(WRONG_INSPECT_COUNT, f"inspect exactly {count} ears", {"count": count})
    for ear in ears:
        if ear in state.revealed:
            raise RuleViolation(EAR_FACE_UP, "only face-down ears may be inspected", {"ear": ear})
    return [ev.ears_inspected(seat, ears, [COLOURS[state.colour[ear]] for ear in ears])]


_HANDLERS: dict[str, Handler] = {
    specs.ROLL: _roll,
    specs.JOKER: _joker,
    specs.PEEK: _peek,
    specs.MOVE: _move,
    specs.PLACE: _place,
    specs.INSPECT: _inspect,
}
