"""The greedy bots make the sound one-move choices their docstrings promise."""

from __future__ import annotations

from typing import Any

from engine.abluxxen.cards import counts_of
from engine.abluxxen.game import GAME as ABLUXXEN
from engine.abluxxen.sets import CardSet
from engine.abluxxen.state import CHOOSE, DRAW, PLAY, State
from engine.ai import choose
from engine.game import replay
from engine.model import JSON
from engine.rng import SeededRandom
from engine.schlitzohr.game import GAME as SCHLITZOHR
from engine.schlitzohr.material import COLOUR_INDEX
from engine.schlitzohr.state import INSPECT, MOVING, SIX, updated

RNG = SeededRandom(b"greedy-tests", "bot")


def schlitzohr(**changes: Any) -> Any:
    """A two-player game at its start (seat 0 red, seat 1 green), with ``changes``."""
    rng = SeededRandom(b"greedy", SCHLITZOHR.rules_version)
    setup = SCHLITZOHR.setup(SCHLITZOHR.validate_options(None), 2, rng)
    return updated(replay(SCHLITZOHR, setup), **changes)


def red_ears(state: Any) -> list[int]:
    return [ear for ear, colour in enumerate(state.colour) if colour == COLOUR_INDEX["red"]]


def greedy(game: Any, state: Any, seat: int) -> JSON:
    legal = game.legal_commands(state, seat)
    return choose(game.name, "greedy", game.view(state, seat), legal, RNG)


def test_schlitzohr_brings_a_known_own_ear_home_after_a_six() -> None:
    # Close to a target it walks the ear home and spends the other pips elsewhere.
    state = schlitzohr()
    own = red_ears(state)[0]
    state = updated(state, phase=SIX, pips=6, known=(frozenset({own}), frozenset()))
    assert own in own_turn(state).revealed


def test_schlitzohr_places_a_known_own_ear_that_is_far_from_home() -> None:
    state = schlitzohr()
    own = red_ears(state)[0]
    far = state.board.index["e5"]  # the centre: five pips from any target, placing is quicker
    occ = list(state.occ)
    occ[state.pos[own]], occ[far] = -1, own
    pos = list(state.pos)
    pos[own] = far
    state = updated(state, phase=SIX, pips=6, pos=tuple(pos), occ=tuple(occ),
                    known=(frozenset({own}), frozenset()))
    command = greedy(SCHLITZOHR, state, 0)
    assert command["kind"] == "place" and command["ear"] == own


def test_schlitzohr_steps_a_known_own_ear_home() -> None:
    state = schlitzohr()
    own = red_ears(state)[0]
    state = updated(state, phase=MOVING, pips=5, known=(frozenset({own}), frozenset()))
    assert own in own_turn(state).revealed


def own_turn(state: Any) -> Any:
    """The state after seat 0 plays greedily to the end of its turn."""
    while state.active == 0 and state.result is None:
        command = greedy(SCHLITZOHR, state, 0)
        state = replay(SCHLITZOHR, SCHLITZOHR.decide(state, 0, command, RNG), state)
    return state


def test_schlitzohr_inspects_ears_it_does_not_know() -> None:
    state = schlitzohr()
    known = frozenset(range(10))
    state = updated(state, phase=INSPECT, inspect_count=3, known=(known, frozenset()))
    command = greedy(SCHLITZOHR, state, 0)
    assert command["kind"] == "inspect" and not set(command["ears"]) & known


def test_schlitzohr_spends_a_joker_only_to_find_own_ears() -> None:
    state = schlitzohr()
    assert greedy(SCHLITZOHR, state, 0) == {"kind": "joker"}
    knows_one = updated(state, known=(frozenset({red_ears(state)[0]}), frozenset()))
    assert greedy(SCHLITZOHR, knows_one, 0) == {"kind": "roll"}


def abluxxen(phase: str = PLAY, **changes: Any) -> State:
    """A two-player Abluxxen deal in ``phase`` (cards given per test)."""
    base = State(
        players=2, edition="amigo", rounds=1, round=1, phase=phase,
        hands=(counts_of([]), counts_of([])), rows=((), ()),
        order=tuple(range(1, 14)) * 4, banked=(0, 0), banked_hand_cards=(0, 0),
    )
    return State(**{**{f: getattr(base, f) for f in base.__dataclass_fields__}, **changes})


def test_abluxxen_plays_the_set_that_abluxxes() -> None:
    state = abluxxen(hands=(counts_of([5, 5, 9, 11, 12]), counts_of([1] * 5)),
                     rows=((), (CardSet(3, 2, 0),)))
    assert greedy(ABLUXXEN, state, 0) == {"kind": "play", "number": 5, "count": 2, "jokers": 0}


def test_abluxxen_empties_its_hand_when_it_can() -> None:
    state = abluxxen(hands=(counts_of([7, 7, 0]), counts_of([1] * 5)))
    assert greedy(ABLUXXEN, state, 0) == {"kind": "play", "number": 7, "count": 2, "jokers": 1}


def test_abluxxen_draws_a_joker_from_the_display() -> None:
    state = abluxxen(DRAW, hands=(counts_of([4]), counts_of([2, 2])), victim=1, owed=2,
                     display=counts_of([0, 3, 8]))
    assert greedy(ABLUXXEN, state, 1) == {"kind": "draw", "from": "display", "card": "X"}


def test_abluxxen_takes_a_set_only_if_it_joins_its_hand() -> None:
    joins = abluxxen(CHOOSE, hands=(counts_of([6, 6, 2]), counts_of([1] * 5)), victim=1,
                     limbo=CardSet(6, 2, 0))
    assert greedy(ABLUXXEN, joins, 0) == {"kind": "take", "victim": 1}
    alien = abluxxen(CHOOSE, hands=(counts_of([6, 6, 2]), counts_of([1] * 5)), victim=1,
                     limbo=CardSet(9, 2, 0))
    assert greedy(ABLUXXEN, alien, 0) == {"kind": "leave", "victim": 1}
