"""What a viewer may see: ``view(state, seat)``; ``seat=None`` is a spectator.

Guarantees: the result is fresh JSON-safe data (no shared mutable parts). While
the game runs it shows an ear's colour only if the ear is face up, or -- in
``known_colours`` of a seat's own view -- if that seat inspected it. Which ears
each seat has inspected is public (``inspected``); what it saw is not. No other
hidden fact appears: no unrevealed colour, no seed. After the game has ended
every colour is shown.
"""

from __future__ import annotations

from functools import lru_cache

from engine.model import JSON
from engine.schlitzohr.board import Board
from engine.schlitzohr.material import COLOURS
from engine.schlitzohr.state import State, scores


def view(state: State, seat: int | None) -> JSON:
    """The viewer's picture of the game (see the module docstring)."""
    over = state.result is not None
    names = state.board.names
    public = [
        COLOURS[state.colour[ear]] if over or ear in state.revealed else None
        for ear in range(len(state.pos))
    ]
    return {
        "game": "schlitzohr",
        "viewer": seat,
        "players": state.players,
        "options": {
            "layout": state.board.name,
            "joker_six_returns": state.joker_six_returns,
            "turn_cap": state.turn_cap,
        },
        "board": {
            **_layout(state.board),
            "ears": [
                {"id": ear, "field": names[f], "colour": public[ear]}
                for ear, f in enumerate(state.pos)
            ],
        },
        "known_colours": _known(state, seat, public),
        "inspected": [sorted(ears) for ears in state.known],
        "seat_colours": [COLOURS[c] for c in state.seat_colour],
        "jokers_left": list(state.jokers_left),
        "scores": list(scores(state)),
        "turn": state.turn,
        "active_seat": None if over else state.active,
        "phase": state.phase,
        "pips_left": state.pips,
        "inspect_count": state.inspect_count,
        "last_roll": _last_roll(state),
        "result": None if state.result is None else state.result.to_json(),
        "forfeited": sorted(state.forfeited),
    }


def _known(state: State, seat: int | None, public: list[str | None]) -> list[str | None]:
    """Per ear id: the colour the viewer knows (face up, or inspected by this seat), else None."""
    if seat is None or not isinstance(seat, int) or not 0 <= seat < state.players:
        return list(public)
    inspected = state.known[seat]
    return [
        COLOURS[state.colour[ear]] if ear in inspected else shown
        for ear, shown in enumerate(public)
    ]


def _last_roll(state: State) -> JSON | None:
    if state.last_roll is None:
        return None
    purpose, value = state.last_roll
    return {"purpose": purpose, "value": value}


def _layout(board: Board) -> JSON:
    """The static board: size, target fields per colour (edge order), blocked fields.
    Fresh lists each call (views share no mutable parts), from names worked out once."""
    targets, blocked, starts = _layout_names(board)
    return {
        "layout": board.name,
        "files": board.files,
        "ranks": board.ranks,
        "targets": {colour: list(names) for colour, names in targets},
        "blocked": list(blocked),
        "starts": list(starts),
    }


@lru_cache(maxsize=16)  # boards are few; bounded in case a decoder builds new ones
def _layout_names(board: Board) -> tuple[tuple[tuple[str, tuple[str, ...]], ...], tuple[str, ...], tuple[str, ...]]:
    """(targets per colour, blocked fields, start fields) by name: fixed per board."""
    names = board.names
    targets = tuple(
        (COLOURS[c], tuple(names[f] for f in fields)) for c, fields in enumerate(board.targets_of)
    )
    blocked = tuple(names[f] for f, is_blocked in enumerate(board.blocked) if is_blocked)
    return targets, blocked, tuple(names[f] for f in board.starts)
