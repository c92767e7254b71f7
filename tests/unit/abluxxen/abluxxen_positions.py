"""Test helper: build Abluxxen positions directly, and step them with commands.

``position(...)`` returns a :class:`State` without playing up to it, so a test
states exactly the situation a rule is about. Cards are given in their JSON form
(ints 1..13, "X" for a joker); sets as ``(number | None, count, jokers)``.

Material: the cards not placed anywhere are the rest of the deck. With
``fill="pile"`` (default) they go below the given ``pile`` cards (so the pile's
top is ``pile[0]``, then the leftovers in a fixed order); ``fill="discard"`` puts
them on the discard pile instead (use it with an empty or short pile);
``fill=None`` drops them (the state then fails ``is_material_conserved``).
Placing more copies of a card than the deck holds raises ValueError.

``step(state, seat, command)`` runs ``decide`` and folds the events: it returns
``(new_state, events)``. ``types(events)`` lists the event types.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engine.abluxxen.cards import DECK_COUNTS, codes_from_json, counts_of, subtract
from engine.abluxxen.game import GAME
from engine.abluxxen.sets import CardSet
from engine.abluxxen.state import PLAY, State
from engine.game import replay
from engine.model import Event
from engine.rng import SeededRandom

SetSpec = tuple[int | None, int, int]


def rng(seed: bytes = b"abluxxen-tests") -> SeededRandom:
    return SeededRandom(seed, GAME.rules_version)


def position(
    players: int = 3,
    *,
    hands: Mapping[int, Sequence[Any]] | None = None,
    rows: Mapping[int, Sequence[SetSpec]] | None = None,
    display: Sequence[Any] = (),
    pile: Sequence[Any] = (),
    discard: Sequence[Any] = (),
    fill: str | None = "pile",
    edition: str = "amigo",
    rounds: int = 1,
    round_no: int = 1,
    start_seat: int = 0,
    active: int = 0,
    phase: str = PLAY,
    turn: int = 0,
    victim: int | None = None,
    victims: Sequence[int] = (),
    limbo: SetSpec | None = None,
    owed: int = 0,
    banked: Sequence[int] | None = None,
    banked_hand_cards: Sequence[int] | None = None,
) -> State:
    """A state with exactly these cards where they are said to be (see module docstring)."""
    hand_counts = tuple(
        counts_of(codes_from_json((hands or {}).get(s, ()))) for s in range(players)
    )
    row_sets = tuple(
        tuple(CardSet(*spec) for spec in (rows or {}).get(s, ())) for s in range(players)
    )
    limbo_set = None if limbo is None else CardSet(*limbo)
    pile_codes = codes_from_json(pile)
    discard_counts = counts_of(codes_from_json(discard))
    placed = [
        *hand_counts,
        counts_of(codes_from_json(display)),
        counts_of(pile_codes),
        discard_counts,
    ]
    placed += [s.counts() for row in row_sets for s in row]
    placed += [] if limbo_set is None else [limbo_set.counts()]
    left = _leftover(placed)
    if fill == "pile":
        pile_codes += [code for code, n in enumerate(left) for _ in range(n)]
    elif fill == "discard":
        discard_counts = tuple(a + b for a, b in zip(discard_counts, left, strict=True))
    zeros = (0,) * players
    return State(
        players=players,
        edition=edition,
        rounds=rounds,
        round=round_no,
        start_seat=start_seat,
        active=active,
        phase=phase,
        turn=turn,
        hands=hand_counts,
        rows=row_sets,
        display=counts_of(codes_from_json(display)),
        order=tuple(pile_codes),
        pos=0,
        discard=discard_counts,
        victim=victim,
        victims=tuple(victims),
        limbo=limbo_set,
        owed=owed,
        banked=tuple(banked) if banked is not None else zeros,
        banked_hand_cards=tuple(banked_hand_cards) if banked_hand_cards is not None else zeros,
    )


def _leftover(placed: Iterable[tuple[int, ...]]) -> tuple[int, ...]:
    left = DECK_COUNTS
    for counts in placed:
        left = subtract(left, counts)
    if min(left) < 0:
        raise ValueError(f"more cards placed than the deck holds: {left}")
    return left


def step(state: State, seat: int, command: Mapping[str, Any]) -> tuple[State, list[Event]]:
    """Decide ``command`` for ``seat`` and fold the events into ``state``."""
    events = GAME.decide(state, seat, command, rng())
    return replay(GAME, events, state), events


def types(events: Iterable[Event]) -> list[str]:
    return [e.type for e in events]


def hand(state: State, seat: int) -> list[Any]:
    """A seat's hand in sorted JSON form (jokers last)."""
    return GAME.view(state, seat)["hand"]
