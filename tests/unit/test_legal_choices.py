"""The compact legal list (``engine.choices``) against the enumerated one, over real games.

At every position of complete random playouts, for every seat: expanding the compact
list -- here with the test's own expansion, not the engine's -- gives exactly
``legal_commands`` (same commands, same order), and each choice is well formed (its
items ascending and distinct, its count within them). Schlitzohr's inspect is one choice
of the face-down ears; a chosen set is accepted in ascending order and refused in any
other.
"""

from __future__ import annotations

import json
from itertools import combinations
from math import comb
from typing import Any

import pytest

from engine.choices import choice, expand
from engine.errors import RuleViolation
from engine.game import Game
from engine.model import JSON, Event
from engine.playout import play
from engine.registry import game_names, get_game
from engine.rng import SeededRandom
from engine.schlitzohr.state import INSPECT, face_down_ears

SEEDS = [b"choices-%d" % n for n in range(6)]


def expand_independently(compact: list[JSON]) -> list[JSON]:
    """The enumeration the compact form promises, written from the contract alone."""
    out: list[JSON] = []
    for item in compact:
        spec = item.get("choose")
        if spec is None:
            out.append(item)
            continue
        assert set(spec) == {"field", "from", "count", "order"} and spec["order"] == "ascending"
        pool = spec["from"]
        assert pool == sorted(set(pool)), "a choice's items are ascending and distinct"
        assert 1 <= spec["count"] <= len(pool)
        base = {k: v for k, v in item.items() if k != "choose"}
        assert spec["field"] not in base
        out.extend({**base, spec["field"]: list(c)} for c in combinations(pool, spec["count"]))
    return out


def _check_position(game: Game[Any], state: Any, players: int, seen: dict[str, int]) -> None:
    for seat in range(players):
        compact = game.legal_choices(state, seat)
        full = game.legal_commands(state, seat)
        assert expand_independently(compact) == full, (game.name, seat)
        assert json.loads(json.dumps(compact)) == compact, "plain JSON"
        choices = [c for c in compact if "choose" in c]
        seen["choices"] += len(choices)
        seen["positions"] += 1
        if game.name == "schlitzohr" and state.phase == INSPECT and seat == state.active:
            assert compact == [
                {
                    "kind": "inspect",
                    "choose": {
                        "field": "ears",
                        "from": face_down_ears(state),
                        "count": state.inspect_count,
                        "order": "ascending",
                    },
                }
            ]
            assert len(full) == comb(len(face_down_ears(state)), state.inspect_count)


@pytest.mark.parametrize("name", game_names())
def test_expanding_the_compact_form_gives_exactly_the_full_form(name: str) -> None:
    game = get_game(name)
    seen = {"choices": 0, "positions": 0}
    for seed in SEEDS:
        players = game.min_players + seed[-1] % (game.max_players - game.min_players + 1)

        def on_step(
            state: Any, seat: int, command: JSON, new: list[Event], players: int = players
        ) -> None:
            _check_position(game, state, players, seen)

        playout = play(game, players, seed, on_step=on_step)
        _check_position(game, playout.state, players, seen)  # the end: both empty
    assert seen["positions"] > 500
    if name == "schlitzohr":
        assert seen["choices"] > 10, "the playouts reached inspect positions"
    else:
        assert seen["choices"] == 0, "no Abluxxen command picks k of n items"


def test_an_inspect_choice_is_accepted_in_ascending_order_only() -> None:
    game = get_game("schlitzohr")
    checked = 0
    rng = SeededRandom(b"choices-decide", game.rules_version)

    def on_step(state: Any, seat: int, command: JSON, new: list[Event]) -> None:
        nonlocal checked
        if state.phase != INSPECT or checked >= 20:
            return
        (item,) = game.legal_choices(state, seat)
        ears = item["choose"]["from"][: item["choose"]["count"]]
        assert game.decide(state, seat, {"kind": "inspect", "ears": ears}, rng)
        if len(ears) > 1:
            with pytest.raises(RuleViolation) as refused:
                game.decide(state, seat, {"kind": "inspect", "ears": ears[::-1]}, rng)
            assert refused.value.code == "ears_not_ascending"
        checked += 1

    for seed in SEEDS:
        play(game, 2, seed, on_step=on_step)
    assert checked >= 5


def test_expand_keeps_order_and_expands_choices_in_place() -> None:
    compact = [{"kind": "a"}, choice("pick", "items", [9, 2, 5], 2, extra=1), {"kind": "z"}]
    assert compact[1]["choose"] == {
        "field": "items",
        "from": [2, 5, 9],
        "count": 2,
        "order": "ascending",
    }
    assert expand(compact) == [
        {"kind": "a"},
        {"kind": "pick", "extra": 1, "items": [2, 5]},
        {"kind": "pick", "extra": 1, "items": [2, 9]},
        {"kind": "pick", "extra": 1, "items": [5, 9]},
        {"kind": "z"},
    ]


@pytest.mark.parametrize(("items", "count"), [([1, 1, 2], 1), ([1, 2], 3), ([1, 2], -1)])
def test_a_malformed_choice_is_refused_when_built(items: list[int], count: int) -> None:
    with pytest.raises(ValueError):
        choice("pick", "items", items, count)
