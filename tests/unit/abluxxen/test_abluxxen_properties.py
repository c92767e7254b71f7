"""Property tests over random playouts (2..5 players, both editions, 1-2 rounds).

At every step: material is conserved; exactly one seat acts; every legal command
is accepted and mutated commands are accepted iff listed; no seat's view depends
on cards hidden from it (checked by reshuffling those cards in the true state and
comparing views); a spectator sees no hand; private event parts reach only the
seats the rules allow.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from typing import Any

from abluxxen_positions import rng
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.abluxxen.cards import counts_of
from engine.abluxxen.game import GAME
from engine.abluxxen.state import OVER, State
from engine.errors import RuleViolation
from engine.game import replay
from engine.model import Event
from engine.playout import play

PROBES: tuple[Any, ...] = (
    None,
    True,
    False,
    -1,
    0,
    1,
    5,
    13,
    14,
    "X",
    "x",
    "pile",
    "display",
    [],
    2.5,
)

games = st.fixed_dictionaries(
    {
        "players": st.integers(2, 5),
        "seed": st.binary(min_size=1, max_size=8),
        "edition": st.sampled_from(["amigo", "classic"]),
        "rounds": st.integers(1, 2),
        "reshuffle_seed": st.integers(0, 2**32),
    }
)


def strict(command: Any) -> str:
    """A type-strict key: True != 1 and 7.0 != 7, unlike dict equality."""
    return json.dumps(command, sort_keys=True)


def mutations(command: dict) -> list[dict]:
    out: list[dict] = [command | {"extra": 1}]
    for name in command:
        out.append({k: v for k, v in command.items() if k != name})
        out.extend(command | {name: probe} for probe in PROBES)
    return out


def hidden_reshuffled(state: State, viewer: int | None, shuffler: random.Random) -> State:
    """``state`` with the cards hidden from ``viewer`` (other hands, undrawn pile) dealt anew."""
    others = [seat for seat in range(state.players) if seat != viewer]
    pool = [code for seat in others for code, n in enumerate(state.hands[seat]) for _ in range(n)]
    pool += state.order[state.pos :]
    shuffler.shuffle(pool)
    hands = list(state.hands)
    for seat in others:
        size = sum(hands[seat])
        hands[seat], pool = counts_of(pool[:size]), pool[size:]
    return replace(state, hands=tuple(hands), order=state.order[: state.pos] + tuple(pool))


def check_events(events: list[Event], seat: int) -> None:
    for e in events:
        assert len(e.visible_to) <= 1
        if e.type == "CardDrawn" and e.data["from"] == "pile":
            assert "card" not in e.data and e.visible_to == (seat,)
        if e.type == "HandDealt":
            assert set(e.data) == {"seat", "size"} and e.visible_to == (e.data["seat"],)
        if e.type == "DeckShuffled":
            assert "order" not in e.data and e.visible_to == ()
        assert Event.from_json(json.loads(json.dumps(e.to_json()))) == e


def check_state(state: State, shuffler: random.Random) -> None:
    assert GAME.is_material_conserved(state)
    if state.phase == OVER:
        assert GAME.to_act(state) == {} and GAME.result(state) is not None
        return
    assert len(GAME.to_act(state)) == 1
    for viewer in [None, *range(state.players)]:
        view = GAME.view(state, viewer)
        json.dumps(view)
        assert view == GAME.view(hidden_reshuffled(state, viewer, shuffler), viewer)
        assert "hands" not in view and "pile" not in view
    assert GAME.view(state, None)["hand"] is None


def check_commands(state: State, seat: int, chosen: dict) -> None:
    legal = GAME.legal_commands(state, seat)
    listed = {strict(c) for c in legal}
    assert len(listed) == len(legal)
    for command in legal:
        GAME.decide(state, seat, command, rng())  # must not raise
    for command in mutations(chosen):
        try:
            GAME.decide(state, seat, command, rng())
            accepted = True
        except RuleViolation:
            accepted = False
        assert accepted == (strict(command) in listed), command
    for other in range(state.players):
        if other != seat:
            assert GAME.legal_commands(state, other) == []


@settings(max_examples=24, deadline=None)
@given(games)
def test_random_playouts_keep_every_invariant(game: dict) -> None:
    shuffler = random.Random(game["reshuffle_seed"])  # reshuffles hidden cards for the view check
    options = {"edition": game["edition"], "rounds": game["rounds"]}
    steps = 0

    def on_step(before: State, seat: int, command: dict, new: list[Event]) -> None:
        nonlocal steps
        steps += 1
        check_events(new, seat)
        if steps % 3 == 1:  # the expensive checks on a third of the steps keep the test fast
            check_commands(before, seat, command)
        check_state(replay(GAME, new, before), shuffler)

    done = play(GAME, game["players"], game["seed"], options, on_step=on_step)
    assert replay(GAME, done.events) == done.state
    assert done.events[-1].type == "GameEnded"
    assert done.events[-1].data == done.result.to_json()
    assert sum(1 for e in done.events if e.type == "DealEnded") == game["rounds"]
