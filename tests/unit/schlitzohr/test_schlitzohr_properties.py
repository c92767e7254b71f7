"""Property tests over random playouts (2, 3 and 4 players).

At every event: material conserved. After every command: no view holds a colour
its viewer has not seen (tracked independently from the events: public reveals,
plus the private part of the viewer's own inspections), the spectator sees only
reveals, and neither the seed nor the secret colour assignment appears. Also:
replay and JSON round trips, and "decide accepts iff listed" on sampled states.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from schlitzohr_helpers import dealt_colours, private

from engine.errors import RuleViolation
from engine.game import replay
from engine.model import JSON, Event
from engine.playout import play
from engine.rng import SeededRandom
from engine.schlitzohr.game import GAME
from engine.schlitzohr.invariants import targets_settled
from engine.schlitzohr.state import State

PLAYERS = st.sampled_from([2, 3, 4])
SEEDS = st.binary(min_size=8, max_size=16)  # long enough that its hex cannot occur by chance


class Knowledge:
    """What each viewer has seen, rebuilt from the events alone."""

    def __init__(self, players: int) -> None:
        self.public: dict[int, str] = {}
        self.private: dict[int, dict[int, str]] = {seat: {} for seat in range(players)}

    def learn(self, event: Event) -> None:
        if event.type == "EarRevealed":
            self.public[event.data["ear"]] = event.data["colour"]
        elif event.type == "EarsInspected":
            assert event.visible_to == (event.data["seat"],)
            seen = {int(ear): colour for ear, colour in private(event)["colours"].items()}
            assert sorted(seen) == event.data["ears"]
            self.private[event.data["seat"]].update(seen)

    def allowed(self, seat: int | None) -> dict[int, str]:
        return {**self.public, **(self.private[seat] if seat is not None else {})}


def check_view(
    state: State, seat: int | None, knows: Knowledge, secret: list[str], seed: bytes
) -> None:
    view = GAME.view(state, seat)
    text = json.dumps(view)
    assert json.loads(text) == view
    assert seed.hex() not in text and "seed" not in text
    if state.result is not None:
        return  # after the end everything is public
    allowed = knows.allowed(seat)
    if len(allowed) < len(secret):  # a seat that has seen every ear may know it all
        assert json.dumps(secret) not in text
    for ear in view["board"]["ears"]:
        assert ear["colour"] is None or knows.public.get(ear["id"]) == ear["colour"]
    for ear, colour in enumerate(view["known_colours"]):
        assert colour is None or allowed.get(ear) == colour == secret[ear]
    if seat is None:
        assert all(ear in knows.public for ear, c in enumerate(view["known_colours"]) if c)


@settings(max_examples=15, deadline=None)
@given(players=PLAYERS, seed=SEEDS)
def test_material_and_hidden_information_in_random_playouts(players: int, seed: bytes) -> None:
    knows = Knowledge(players)
    secret = dealt_colours(players, seed)

    def on_step(before: State, seat: int, command: JSON, events: list[Event]) -> None:
        state = before
        for event in events:
            state = GAME.evolve(state, event)
            assert GAME.is_material_conserved(state)
            knows.learn(event)
        assert targets_settled(state)
        for viewer in (None, *range(players)):
            check_view(state, viewer, knows, secret, seed)

    game = play(GAME, players, seed, on_step=on_step)
    assert game.events[-1].type == "GameEnded" and game.result is not None
    assert game.events[-1].data == game.result.to_json()
    assert sum(1 for e in game.events if e.type == "GameEnded") == 1


@settings(max_examples=10, deadline=None)
@given(players=PLAYERS, seed=SEEDS)
def test_replay_and_json_round_trip(players: int, seed: bytes) -> None:
    game = play(GAME, players, seed)
    stored = [Event.from_json(json.loads(json.dumps(event.to_json()))) for event in game.events]
    assert stored == game.events
    assert replay(GAME, stored) == game.state
    assert GAME.result(game.state) == game.result


def _mutations(state: State, command: JSON) -> list[Any]:
    out: list[Any] = [
        {**command, "kind": kind} for kind in ("roll", "joker", "move", "peek", "place", "inspect")
    ]
    if "ear" in command:
        out += [{**command, "ear": ear} for ear in (-1, 0, 5, 15, 16, True)]
        out += [{**command, "to": name} for name in state.board.names[::4]]
    if "ears" in command:
        ears = command["ears"]
        out += [
            {**command, "ears": ears[::-1]},
            {**command, "ears": ears[1:]},
            {**command, "ears": [*ears, 15]},
        ]
    return out


@settings(max_examples=8, deadline=None)
@given(players=PLAYERS, seed=SEEDS)
def test_decide_accepts_exactly_the_listed_commands(players: int, seed: bytes) -> None:
    states: list[State] = []
    play(GAME, players, seed, on_step=lambda before, *_: states.append(before))
    rng = SeededRandom(b"probe", GAME.rules_version)
    for state in states[::5]:
        seat = state.active
        legal = GAME.legal_commands(state, seat)
        assert sorted({c["kind"] for c in legal}) == sorted(GAME.to_act(state)[seat])
        listed = {json.dumps(c, sort_keys=True) for c in legal}
        candidates = legal[:25] + [m for c in legal[:4] for m in _mutations(state, c)]
        for command in candidates:
            try:
                GAME.decide(state, seat, command, rng)
                accepted = True
            except RuleViolation:
                accepted = False
            assert accepted == (json.dumps(command, sort_keys=True) in listed), command
        for other in range(players):
            if other != seat:
                assert GAME.legal_commands(state, other) == []
