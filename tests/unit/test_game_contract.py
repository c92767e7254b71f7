"""The contract every registered game keeps (see ``engine/game.py``).

One abstract suite, run against every game in the registry and every player
count: random playouts checked at every step, in the spirit of OpenSpiel's
random-simulation tests.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import RuleViolation
from engine.game import Game, replay
from engine.model import JSON, Event
from engine.playout import play
from engine.registry import game_names, get_game
from engine.rng import SeededRandom

CASES = [
    (name, players)
    for name in game_names()
    for players in range(get_game(name).min_players, get_game(name).max_players + 1)
]
IDS = [f"{name}-{players}p" for name, players in CASES]

# Values a mutated field may take: other types, out-of-range numbers, near misses.
JUNK = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 20), st.just(10**12), st.text(max_size=3),
    st.sampled_from(["a1", "e5", "i9", "z0", "X", "pile", "display"]),
    st.lists(st.integers(-1, 16), max_size=7),
)


def mutate(command: JSON, data: st.DataObject) -> JSON:
    """A near-miss of a legal command: one field changed, dropped or added, or the kind changed."""
    out = dict(command)
    how = data.draw(st.sampled_from(["change", "drop", "add", "kind"]))
    if how == "change" and len(out) > 1:
        field = data.draw(st.sampled_from(sorted(k for k in out if k != "kind")))
        out[field] = data.draw(JUNK)
    elif how == "drop":
        del out[data.draw(st.sampled_from(sorted(out)))]
    elif how == "add":
        out[data.draw(st.sampled_from(["extra", "seat", "ear", "card"]))] = data.draw(JUNK)
    else:
        out["kind"] = data.draw(st.sampled_from(["roll", "move", "play", "draw", "take", "nope", ""]))
    return out


def check_step(game: Game[Any], state: Any, players: int, rng: SeededRandom, data: st.DataObject) -> None:
    """Invariants of one position: to_act vs legal lists, acceptance iff listed, views."""
    assert game.is_material_conserved(state)
    to_act = game.to_act(state)
    assert to_act, "a running game always has someone to act"
    legal_by_seat = {seat: game.legal_commands(state, seat) for seat in range(players)}
    for seat, legal in legal_by_seat.items():
        assert bool(legal) == (seat in to_act), (seat, to_act)
        assert {c["kind"] for c in legal} <= set(to_act.get(seat, ())), (seat, to_act)
        json.dumps(game.view(state, seat))
    json.dumps(game.view(state, None))
    seat = min(to_act)
    legal = legal_by_seat[seat]
    listed = {json.dumps(c, sort_keys=True) for c in legal}
    assert len(listed) == len(legal), "legal commands are listed once each"
    for command in data.draw(st.lists(st.sampled_from(legal), min_size=1, max_size=3)):
        game.decide(state, seat, command, rng)  # must not raise
        candidate = mutate(command, data)
        if json.dumps(candidate, sort_keys=True, default=str) in listed:
            game.decide(state, seat, candidate, rng)
        else:
            with pytest.raises(RuleViolation):
                game.decide(state, seat, candidate, rng)
    for other in range(-1, players + 1):
        if other not in to_act:
            with pytest.raises(RuleViolation):
                game.decide(state, other, legal[0], rng)


@pytest.mark.parametrize(("name", "players"), CASES, ids=IDS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.binary(min_size=4, max_size=8), data=st.data())
def test_random_playout_keeps_the_contract(name: str, players: int, seed: bytes, data: st.DataObject) -> None:
    game = get_game(name)
    rng = SeededRandom(b"contract-probe", game.rules_version)
    steps = 0

    def on_step(state: Any, seat: int, command: JSON, new: list[Event]) -> None:
        nonlocal steps
        steps += 1
        # Checking every position is costly; every 7th keeps the run fast yet broad.
        if steps % 7 == 1:
            check_step(game, state, players, rng, data)
        assert new, "an accepted command produces at least one event"

    playout = play(game, players, seed, on_step=on_step)
    state = playout.state
    assert game.result(state) == playout.result
    assert playout.events[-1].type == "GameEnded"
    assert playout.events[-1].data["scores"] == list(playout.result.scores)
    assert len(playout.result.scores) == players
    assert set(playout.result.winners) <= set(range(players)) and playout.result.winners
    assert game.scores(state) == playout.result.scores
    assert game.to_act(state) == {}
    assert all(game.legal_commands(state, s) == [] for s in range(players))
    with pytest.raises(RuleViolation):
        game.decide(state, 0, playout.commands[-1][1], rng)
    # Replaying the history -- also after a JSON round trip -- rebuilds the same state.
    assert replay(game, playout.events) == state
    stored = [Event.from_json(json.loads(json.dumps(e.to_json()))) for e in playout.events]
    assert stored == playout.events
    assert replay(game, stored) == state


@pytest.mark.parametrize("name", game_names())
def test_playouts_are_deterministic_per_seed(name: str) -> None:
    game = get_game(name)
    first = play(game, game.min_players, b"same-seed")
    again = play(game, game.min_players, b"same-seed")
    other = play(game, game.min_players, b"other-seed")
    assert first.events == again.events
    assert first.events != other.events


@pytest.mark.parametrize("name", game_names())
@given(junk=st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
))
@settings(max_examples=60, deadline=None)
def test_any_malformed_input_is_a_rule_violation(name: str, junk: Any) -> None:
    game = get_game(name)
    rng = SeededRandom(b"x", game.rules_version)
    state = replay(game, game.setup(game.validate_options({}), game.min_players, rng))
    seat = min(game.to_act(state))
    if isinstance(junk, dict) and json.dumps(junk, sort_keys=True) in {
        json.dumps(c, sort_keys=True) for c in game.legal_commands(state, seat)
    }:
        return
    with pytest.raises(RuleViolation) as err:
        game.decide(state, seat, junk, rng)
    assert err.value.code


@pytest.mark.parametrize("name", game_names())
def test_options_are_validated(name: str) -> None:
    game = get_game(name)
    defaults = game.validate_options({})
    assert set(defaults) == {spec.name for spec in game.option_specs}
    with pytest.raises(RuleViolation) as err:
        game.validate_options({"no_such_option": 1})
    assert err.value.code == "invalid_option"
    for spec in game.option_specs:
        with pytest.raises(RuleViolation):
            game.validate_options({spec.name: "not-a-valid-value" if spec.type != "choice" else 12345})


@pytest.mark.parametrize("name", game_names())
def test_player_count_outside_the_range_is_refused(name: str) -> None:
    game = get_game(name)
    rng = SeededRandom(b"x", game.rules_version)
    for players in (game.min_players - 1, game.max_players + 1, 0):
        with pytest.raises(RuleViolation) as err:
            game.setup(game.validate_options({}), players, rng)
        assert err.value.code == "invalid_player_count"
