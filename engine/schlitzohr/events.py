"""The event types of Schlitzohr and their constructors.

The JSON form of these events is stored forever: field names and meanings never
change. Fields are JSON scalars or lists; ear ids are ints, fields are names
(``"e5"``), colours are names (``"red"``). Only two events carry a private part:
``GameSetUp`` (the colour of every ear, visible to nobody during play) and
``EarsInspected`` (the colours seen, visible to the inspecting seat only).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.model import Event

GAME_SET_UP = "GameSetUp"
DIE_ROLLED = "DieRolled"
EAR_MOVED = "EarMoved"
EAR_PLACED = "EarPlaced"
EAR_REVEALED = "EarRevealed"
EAR_RELOCATED = "EarRelocated"
EARS_INSPECTED = "EarsInspected"
JOKER_USED = "JokerUsed"
JOKER_RETURNED = "JokerReturned"
MOVE_ENDED = "MoveEnded"
TURN_ENDED = "TurnEnded"
GAME_ENDED = "GameEnded"
SEAT_FORFEITED = "SeatForfeited"

# DieRolled purposes.
ROLL_TURN = "turn"
ROLL_PEEK = "peek"
ROLL_JOKER = "joker"

# GameEnded reasons.
ALL_EARS_HOME = "all_ears_home"
TURN_CAP = "turn_cap"
FORFEIT = "forfeit"

NO_LEGAL_STEP = "no_legal_step"
"""MoveEnded reason: pips are left but no ear has a legal step."""


def game_set_up(
    players: int,
    options: Mapping[str, Any],
    seat_colours: list[str],
    fields: list[str],
    colours: list[str],
) -> Event:
    """The first event. ``fields`` and ``colours`` are indexed by ear id; colours stay secret."""
    data = {
        "players": players,
        "options": dict(options),
        "seat_colours": seat_colours,
        "ears": fields,
        "first_seat": 0,
    }
    return Event(GAME_SET_UP, data, {"colours": colours}, ())


def die_rolled(seat: int, value: int, purpose: str) -> Event:
    return Event(DIE_ROLLED, {"seat": seat, "value": value, "purpose": purpose})


def ear_moved(seat: int, ear: int, src: str, dst: str, pips: int) -> Event:
    return Event(EAR_MOVED, {"seat": seat, "ear": ear, "from": src, "to": dst, "pips": pips})


def ear_placed(seat: int, ear: int, src: str, dst: str) -> Event:
    return Event(EAR_PLACED, {"seat": seat, "ear": ear, "from": src, "to": dst})


def ear_revealed(ear: int, field: str, colour: str) -> Event:
    return Event(EAR_REVEALED, {"ear": ear, "field": field, "colour": colour})


def ear_relocated(ear: int, src: str, dst: str) -> Event:
    return Event(EAR_RELOCATED, {"ear": ear, "from": src, "to": dst})


def ears_inspected(seat: int, ears: list[int], colours: list[str]) -> Event:
    """``colours[i]`` is the colour of ``ears[i]``; only ``seat`` may see them."""
    seen = {str(ear): colour for ear, colour in zip(ears, colours, strict=True)}
    return Event(EARS_INSPECTED, {"seat": seat, "ears": ears}, {"colours": seen}, (seat,))


def joker_used(seat: int, jokers_left: int) -> Event:
    return Event(JOKER_USED, {"seat": seat, "jokers_left": jokers_left})


def joker_returned(seat: int, jokers_left: int) -> Event:
    return Event(JOKER_RETURNED, {"seat": seat, "jokers_left": jokers_left})


def move_ended(seat: int, pips_left: int) -> Event:
    return Event(MOVE_ENDED, {"seat": seat, "pips_left": pips_left, "reason": NO_LEGAL_STEP})


def turn_ended(seat: int, next_seat: int, turn: int) -> Event:
    """``turn`` is the number of the turn that starts now."""
    return Event(TURN_ENDED, {"seat": seat, "next_seat": next_seat, "turn": turn})


def seat_forfeited(seat: int) -> Event:
    """``seat`` is out (it resigned, or timed out under a turn clock's ``forfeit``
    policy): its turns are skipped from now on, its ears stay on the board, it cannot win."""
    return Event(SEAT_FORFEITED, {"seat": seat})


def game_ended(reason: str, scores: list[int], winners: list[int], turns: int) -> Event:
    return Event(
        GAME_ENDED, {"reason": reason, "scores": scores, "winners": winners, "turns": turns}
    )
