"""A seat's view of Schlitzohr, parsed once into indices the heuristics can use.

Everything here comes from the JSON view (``engine.schlitzohr.views.view``) plus
the public, static layout tables of :mod:`engine.schlitzohr.board`; nothing is
read from a game state. Colours are indices into ``COLOURS``; fields are board
indices.

Colour beliefs are the plain counting ones: every colour has four ears, so an ear
whose colour the seat does not know is colour ``c`` with probability
``remaining[c] / len(unknown)`` -- the marginal of a uniform draw over every
assignment consistent with what the seat has seen.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model import JSON
from engine.schlitzohr.board import LAYOUTS, Board
from engine.schlitzohr.material import COLOUR_INDEX, COLOURS, EARS_PER_COLOUR
from engine.schlitzohr.state import EMPTY


@dataclass(frozen=True, slots=True)
class Observation:
    """What one seat knows, as indices. ``known[e]`` is None if the seat does not know ear e."""

    board: Board
    seat: int
    players: int
    seat_colour: tuple[int, ...]
    pos: tuple[int, ...]
    occ: tuple[int, ...]
    face_up: frozenset[int]
    known: tuple[int | None, ...]
    inspected: tuple[frozenset[int], ...]
    jokers_left: tuple[int, ...]
    phase: str
    pips: int
    inspect_count: int
    turn: int
    remaining: tuple[int, ...]  # per colour: ears of it whose colour the seat does not know
    unknown: tuple[int, ...]  # ear ids (face down) whose colour the seat does not know

    @property
    def my_colour(self) -> int:
        return self.seat_colour[self.seat]

    def face_down(self) -> list[int]:
        return [ear for ear in range(len(self.pos)) if ear not in self.face_up]

    def colour_probability(self, ear: int, colour: int) -> float:
        """P(ear has ``colour``) given the seat's knowledge (0 or 1 for a known ear)."""
        seen = self.known[ear]
        if seen is not None:
            return 1.0 if seen == colour else 0.0
        return self.remaining[colour] / len(self.unknown)


def observe(view: JSON) -> Observation:
    """Parse a seat's view. Raises KeyError/ValueError for a spectator's or malformed view."""
    seat = view["viewer"]
    if seat is None:
        raise ValueError("a bot needs a seat's view, not a spectator's")
    board = LAYOUTS[view["options"]["layout"]]
    pos = tuple(board.index[ear["field"]] for ear in view["board"]["ears"])
    occ = [EMPTY] * len(board.names)
    for ear, field in enumerate(pos):
        occ[field] = ear
    face_up = frozenset(e["id"] for e in view["board"]["ears"] if e["colour"] is not None)
    known = tuple(None if c is None else COLOUR_INDEX[c] for c in view["known_colours"])
    remaining = [EARS_PER_COLOUR] * len(COLOURS)
    for colour in known:
        if colour is not None:
            remaining[colour] -= 1
    return Observation(
        board=board,
        seat=seat,
        players=view["players"],
        seat_colour=tuple(COLOUR_INDEX[c] for c in view["seat_colours"]),
        pos=pos,
        occ=tuple(occ),
        face_up=face_up,
        known=known,
        inspected=tuple(frozenset(ears) for ears in view["inspected"]),
        jokers_left=tuple(view["jokers_left"]),
        phase=view["phase"],
        pips=view["pips_left"],
        inspect_count=view["inspect_count"],
        turn=view["turn"],
        remaining=tuple(remaining),
        unknown=tuple(ear for ear, colour in enumerate(known) if colour is None),
    )
