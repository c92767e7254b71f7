"""Test helpers for the Schlitzohr engine (imported by the test modules next to it).

Positions are built DIRECTLY as :class:`State` values by :func:`position`: start
from the default (ear ``i`` on start field ``i``, ears 0-3 red, 4-7 blue, 8-11
green, 12-15 yellow), then override fields, colours, phase, pips, jokers and so
on. Ears put on target fields are face up, as the rules require; the helper
asserts that the result satisfies ``is_material_conserved`` so a test can never
start from an impossible position. Dice are scripted with :class:`Dice`.

This module has a unique basename and no ``__init__.py`` around it: pytest's
default (prepend) import mode puts this directory on ``sys.path``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import reduce
from typing import Any

from engine.model import Event
from engine.rng import SeededRandom
from engine.schlitzohr.board import LAYOUTS, Board, LayoutSpec, compile_layout
from engine.schlitzohr.evolve import evolve
from engine.schlitzohr.game import GAME
from engine.schlitzohr.invariants import is_material_conserved, targets_settled
from engine.schlitzohr.material import COLOUR_INDEX, COLOURS, EARS, JOKERS_PER_SEAT, seat_colours
from engine.schlitzohr.state import EMPTY, START, State

CLASSIC = LAYOUTS["classic-9x9"]
DEFAULT_COLOURS: tuple[str, ...] = tuple(COLOURS[ear // 4] for ear in range(EARS))

# A test-only layout (9x4) that shows the rule "a move ends when no ear has a
# legal step": the pen a1-c4 + d1-d3 (15 grey fields) is closed by the blocked
# fields d4 e1 e2 e3; the lone grey field e4 leads only to the target f4.
#   rank 4:  a4 b4 c4 ## e4 Y  Y  Y  Y      (## blocked, e4 grey)
#   rank 3:  a3 b3 c3 d3 ## G  G  G  G
#   rank 2:  a2 b2 c2 d2 ## B  B  B  B
#   rank 1:  a1 b1 c1 d1 ## R  R  R  R
PEN_SPEC = LayoutSpec(
    name="test-pen",
    files=9,
    ranks=4,
    targets=(
        ("red", ("f1", "g1", "h1", "i1")),
        ("blue", ("f2", "g2", "h2", "i2")),
        ("green", ("f3", "g3", "h3", "i3")),
        ("yellow", ("f4", "g4", "h4", "i4")),
    ),
    blocked=("d4", "e1", "e2", "e3"),
    starts=tuple("a1 b1 c1 d1 a2 b2 c2 d2 a3 b3 c3 d3 a4 b4 c4 e4".split()),
)
PEN: Board = compile_layout(PEN_SPEC)


class Dice:
    """A RandomSource that returns scripted die values in order and records the purposes."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)
        self.purposes: list[str] = []

    def randbelow(self, n: int, purpose: str) -> int:
        assert n == 6, f"only die rolls are scripted, got randbelow({n})"
        self.purposes.append(purpose)
        return self.values.pop(0) - 1


def position(
    players: int = 2,
    *,
    fields: Mapping[int, str] | None = None,
    colours: Sequence[str] = DEFAULT_COLOURS,
    board: Board = CLASSIC,
    active: int = 0,
    phase: str = START,
    pips: int = 0,
    inspect_count: int = 0,
    turn: int = 1,
    turn_cap: int = 300,
    joker_six_returns: bool = True,
    jokers_left: Sequence[int] | None = None,
    known: Mapping[int, Sequence[int]] | None = None,
) -> State:
    """A consistent state built directly (see the module docstring)."""
    pos = [board.starts[ear] for ear in range(EARS)]
    for ear, name in (fields or {}).items():
        pos[ear] = board.index[name]
    occ = [EMPTY] * len(board.names)
    for ear, field in enumerate(pos):
        assert occ[field] == EMPTY, f"two ears on {board.names[field]}"
        occ[field] = ear
    colour = tuple(COLOUR_INDEX[name] for name in colours)
    revealed = frozenset(ear for ear, field in enumerate(pos) if board.target_colour[field] >= 0)
    left = tuple(jokers_left) if jokers_left is not None else (JOKERS_PER_SEAT,) * players
    used = tuple(JOKERS_PER_SEAT - n for n in left)
    state = State(
        board=board,
        players=players,
        turn_cap=turn_cap,
        joker_six_returns=joker_six_returns,
        seat_colour=seat_colours(players),
        colour=colour,
        pos=tuple(pos),
        occ=tuple(occ),
        revealed=revealed,
        known=tuple(frozenset((known or {}).get(seat, ())) for seat in range(players)),
        home=tuple(sum(1 for ear in revealed if colour[ear] == c) for c in range(len(COLOURS))),
        jokers_left=left,
        jokers_used=used,
        jokers_returned=(0,) * players,
        turn=turn,
        active=active,
        phase=phase,
        pips=pips,
        inspect_count=inspect_count,
        last_roll=None,
        result=None,
    )
    assert is_material_conserved(state) and targets_settled(state), (
        "the helper built an impossible position"
    )
    return state


def act(
    state: State, seat: int, command: Mapping[str, object], *dice: int
) -> tuple[State, list[Event]]:
    """``decide`` with scripted dice, then fold the events: (new state, events)."""
    rng = Dice(*dice)
    events = GAME.decide(state, seat, command, rng)
    assert not rng.values, f"unused dice {rng.values}"
    return reduce(evolve, events, state), events


def private(event: Event) -> Mapping[str, Any]:
    """The private part of an event that must have one."""
    assert event.private is not None, f"{event.type} has no private part"
    return event.private


def dealt_colours(players: int, seed: bytes) -> list[str]:
    """The secret colours per ear id that ``engine.playout.play`` deals for ``seed``."""
    rng = SeededRandom(seed, GAME.rules_version)
    (event,) = GAME.setup(GAME.validate_options(None), players, rng)
    return list(private(event)["colours"])


def kinds(events: Sequence[Event]) -> list[str]:
    """The event types, in order."""
    return [event.type for event in events]


def of_type(events: Sequence[Event], type_: str) -> list[Event]:
    """The events of one type."""
    return [event for event in events if event.type == type_]


def step(ear: int, to: str) -> dict[str, object]:
    return {"kind": "move", "ear": ear, "to": to}


def place(ear: int, to: str) -> dict[str, object]:
    return {"kind": "place", "ear": ear, "to": to}
