"""A bot's input is exactly the seat's view: nothing hidden reaches it.

The bots are wrapped as playout policies; every argument they receive is
compared with ``game.view(state, seat)`` computed independently from the true
state, and checked for facts the rules hide from that seat.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from ai_positions import CASES, IDS

from engine.abluxxen.cards import counts_to_json
from engine.ai import LEVELS, bot_policy
from engine.model import JSON, Event
from engine.playout import Policy, play
from engine.registry import get_game
from engine.rng import RandomSource


class Recorder:
    """A policy that remembers what it was given (a deep copy) and delegates."""

    def __init__(self, inner: Policy) -> None:
        self.inner = inner
        self.received: list[JSON] = []

    def __call__(self, view: JSON, legal: list[JSON], rng: RandomSource, purpose: str) -> JSON:
        given = copy.deepcopy(view)
        command = self.inner(view, legal, rng, purpose)
        assert view == given, "a bot must not change the view it is given"
        self.received.append(given)
        return command


def assert_nothing_hidden(name: str, state: Any, seat: int, view: JSON) -> None:
    """The view holds no fact the rules hide from ``seat`` while the game runs."""
    if name == "schlitzohr":
        for ear, colour in enumerate(view["known_colours"]):
            if colour is not None:
                assert ear in state.revealed or ear in state.known[seat]
        for ear in view["board"]["ears"]:
            assert (ear["colour"] is not None) == (ear["id"] in state.revealed)
    else:  # no other hand, no pile card: only its own hand and the sizes of the others
        assert "hands" not in view and "pile" not in view
        assert view["seat"] == seat and view["hand"] == counts_to_json(state.hands[seat])
    assert view == get_game(name).view(state, seat)


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
@pytest.mark.parametrize("level", LEVELS)
def test_the_bot_receives_exactly_the_seat_view(name: str, players: int, level: str) -> None:
    game = get_game(name)
    recorders = {seat: Recorder(bot_policy(name, level, budget=4)) for seat in range(players)}
    expected: list[JSON] = []

    def on_step(state: Any, seat: int, command: JSON, new: list[Event]) -> None:
        view = game.view(state, seat)
        assert_nothing_hidden(name, state, seat, view)
        expected.append(view)
        assert recorders[seat].received[-1] == view

    playout = play(game, players, f"inputs-{level}".encode(), policies=recorders, on_step=on_step)
    assert len(expected) == len(playout.commands)
    assert sum(len(r.received) for r in recorders.values()) == len(expected)
