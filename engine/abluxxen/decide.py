"""Commands -> events, or RuleViolation. Never mutates the state, never raises anything else.

Checks run in this order, so each input has one well-defined code:
``game_over`` -> ``invalid_seat`` -> command shape (``malformed_command`` /
``unknown_command`` for the ``kind``) -> ``not_your_turn`` -> ``wrong_phase`` ->
the fields (``malformed_command``) -> the rules of that command.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engine.abluxxen import codes, flow
from engine.abluxxen import events as ev
from engine.abluxxen.cards import COPIES_PER_NUMBER, JOKER, JOKER_COPIES, card_from_json
from engine.abluxxen.legal import ALL_KINDS, KINDS_BY_PHASE
from engine.abluxxen.sets import CardSet
from engine.abluxxen.state import OVER, State
from engine.commands import command_kind, exact_fields, int_field, str_field
from engine.errors import (
    GAME_OVER,
    INVALID_SEAT,
    MALFORMED_COMMAND,
    NOT_YOUR_TURN,
    WRONG_PHASE,
    RuleViolation,
)
from engine.model import Event
from engine.rng import RandomSource

Handler = Callable[[flow.Batch, int, Mapping[str, Any], RandomSource], None]


def decide(state: State, seat: Any, command: Any, rng: RandomSource) -> list[Event]:
    """The events of ``command`` sent by ``seat``; see the module docstring for the checks."""
    if state.phase == OVER:
        raise RuleViolation(GAME_OVER, "the game is over")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.players:
        raise RuleViolation(
            INVALID_SEAT, f"no seat {seat!r} in this game", {"players": state.players}
        )
    kind = command_kind(command, ALL_KINDS)
    actor = state.actor()
    if seat != actor:
        raise RuleViolation(NOT_YOUR_TURN, f"seat {actor} must act now", {"to_act": actor})
    allowed = KINDS_BY_PHASE[state.phase]
    if kind not in allowed:
        raise RuleViolation(
            WRONG_PHASE,
            f"{kind!r} is not possible in phase {state.phase!r}",
            {"kinds": list(allowed)},
        )
    batch = flow.Batch(state)
    _HANDLERS[kind](batch, seat, command, rng)
    return batch.events


def _play(b: flow.Batch, seat: int, command: Mapping[str, Any], rng: RandomSource) -> None:
    played = _parse_set(command)
    hand = b.state.hands[seat]
    if hand[JOKER] < played.jokers or (
        played.number is not None and hand[played.number] < played.count
    ):
        raise RuleViolation(
            codes.CARDS_NOT_IN_HAND, "your hand does not hold these cards", played.to_json()
        )
    b.emit(ev.set_played(seat, played))
    flow.after_play(b, rng)


def _parse_set(command: Mapping[str, Any]) -> CardSet:
    """The set a ``play`` command describes (fields checked, not yet the hand)."""
    exact_fields(command, "number", "count", "jokers")
    number = None if command["number"] is None else int_field(command, "number", 1, 13)
    count = int_field(command, "count", 0, COPIES_PER_NUMBER)
    jokers = int_field(command, "jokers", 0, JOKER_COPIES)
    if number is None and count != 0:
        raise RuleViolation(
            codes.INVALID_SET, "an all-joker set (number null) needs count 0", {"field": "count"}
        )
    if number is not None and count == 0:
        raise RuleViolation(
            codes.INVALID_SET, "a set needs at least one card of its number", {"field": "count"}
        )
    if count + jokers == 0:
        raise RuleViolation(codes.INVALID_SET, "a set needs at least one card", {"field": "jokers"})
    return CardSet(number, count, jokers)


def _check_victim(b: flow.Batch, command: Mapping[str, Any]) -> int:
    exact_fields(command, "victim")
    victim = int_field(command, "victim", 0, b.state.players - 1)
    if victim != b.state.victim:
        raise RuleViolation(
            codes.WRONG_VICTIM,
            f"the set being resolved is seat {b.state.victim}'s",
            {"victim": b.state.victim},
        )
    return victim


def _take(b: flow.Batch, seat: int, command: Mapping[str, Any], rng: RandomSource) -> None:
    victim = _check_victim(b, command)
    assert b.state.limbo is not None
    b.emit(ev.set_taken(seat, victim, b.state.limbo))


def _leave(b: flow.Batch, seat: int, command: Mapping[str, Any], rng: RandomSource) -> None:
    b.emit(ev.set_left(seat, _check_victim(b, command)))


def _take_back(b: flow.Batch, seat: int, command: Mapping[str, Any], rng: RandomSource) -> None:
    exact_fields(command)
    assert b.state.limbo is not None
    b.emit(ev.set_taken_back(seat, b.state.limbo))
    flow.victim_done(b)


def _discard(b: flow.Batch, seat: int, command: Mapping[str, Any], rng: RandomSource) -> None:
    exact_fields(command)
    assert b.state.limbo is not None
    b.emit(ev.set_discarded(seat, b.state.limbo))


def _draw(b: flow.Batch, seat: int, command: Mapping[str, Any], rng: RandomSource) -> None:
    source = str_field(command, "from", {ev.FROM_DISPLAY, ev.FROM_PILE})
    s = b.state
    if source == ev.FROM_DISPLAY:
        exact_fields(command, "from", "card")
        code = card_from_json(command["card"])
        if code is None:
            raise RuleViolation(
                MALFORMED_COMMAND, "field 'card' must be 1..13 or \"X\"", {"field": "card"}
            )
        if not s.display[code]:
            raise RuleViolation(
                codes.CARD_NOT_IN_DISPLAY, "no such card in the display", {"card": command["card"]}
            )
        b.emit(ev.drawn_from_display(seat, code))
    else:
        exact_fields(command, "from")
        if not s.pile_size:
            raise RuleViolation(codes.PILE_EMPTY, "the draw pile is empty")
        b.emit(ev.drawn_from_pile(seat, s.order[s.pos]))
    flow.after_draw(b, rng)


def _pass(b: flow.Batch, seat: int, command: Mapping[str, Any], rng: RandomSource) -> None:
    exact_fields(command)
    b.emit(ev.draw_declined(seat))
    flow.refill(b)  # a no-op in practice: the display is as full as the pile allows here
    flow.end_turn(b)


_HANDLERS: dict[str, Handler] = {
    "play": _play,
    "take": _take,
    "leave": _leave,
    "take_back": _take_back,
    "discard": _discard,
    "draw": _draw,
    "pass": _pass,
}
