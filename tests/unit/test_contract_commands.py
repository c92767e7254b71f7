"""The published command schemas agree with the engines that judge commands.

For commands the engines list as legal, mutated every way a client could get them
wrong (a field dropped, added, of another type, out of range, another kind), in the very
state where the original was legal:

- what a command schema of ``openapi.yaml`` refuses, the engine refuses too;
- what the schema allows, the engine never refuses for its form (``malformed_command``,
  ``unknown_command``, ``unknown_ear``, ``unknown_field``) -- it may still refuse it by
  the rules (``wrong_phase``, ``ears_not_ascending``, ...).

One exception, stated in the spec's text ("int seat"): a ``victim`` within the largest
table but beyond this game's seats is ``malformed_command`` (the schema cannot know the
number of players).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import jsonschema_rs
import pytest
from support.contract import spec

from engine.errors import RuleViolation
from engine.playout import play
from engine.registry import game_names, get_game
from engine.rng import SeededRandom
from service.contract.schemas import camel
from service.http.body import _loads

FORM_CODES = frozenset({"malformed_command", "unknown_command", "unknown_ear", "unknown_field"})
ODD_VALUES: tuple[Any, ...] = (
    *(True, 1.5, 2.0, "x", "X", "zz", "a1", None, [], {}, 99, 10**20),
    *([0, 0], [3, 1], list(range(17))),
)


def mutations(command: dict[str, Any], kinds: list[str]) -> Iterator[dict[str, Any]]:
    for name in command:
        if name != "kind":
            yield {k: v for k, v in command.items() if k != name}
        for value in ODD_VALUES:
            yield {**command, name: copy.deepcopy(value)}
        if isinstance(command[name], int) or command[name] is None:  # every bound's edges
            for value in range(-1, 21):
                yield {**command, name: value}
        if isinstance(command[name], list):
            for value in range(-1, 21):
                yield {**command, name: [value]}
    yield {**command, "extra": 1}
    for kind in (*kinds, "nope"):
        yield {**command, "kind": kind}


@pytest.mark.parametrize("game_name", game_names())
def test_the_engine_refuses_exactly_what_the_command_schema_refuses(game_name: str) -> None:
    game = get_game(game_name)
    schema = jsonschema_rs.validator_for(
        {
            "$ref": f"#/components/schemas/{camel(game_name)}Command",
            "components": spec()["components"],
        }
    )
    kinds = [s.kind for s in game.command_specs]
    rng = SeededRandom(b"mutations-seed-0", game.rules_version)
    samples: list[tuple[Any, int, dict[str, Any]]] = []

    per_kind: dict[str, int] = {}

    def on_step(state: Any, seat: int, command: dict[str, Any], new: list[Any]) -> None:
        taken: set[str] = set()  # one command of each kind per state, 30 of each kind
        for legal in game.legal_commands(state, seat):
            kind = legal["kind"]
            if kind not in taken and per_kind.get(kind, 0) < 30:
                samples.append((state, seat, legal))
                per_kind[kind] = per_kind.get(kind, 0) + 1
                taken.add(kind)

    for n in range(4):
        play(game, game.min_players + n % 2, bytes([n + 1]) * 16, on_step=on_step)
    assert {c["kind"] for _, _, c in samples} == set(kinds)
    checked = 0
    for state, seat, legal in samples[:400]:
        players = len(game.scores(state))
        for mutated in mutations(legal, kinds):
            # As the server reads it off the wire (a whole 2.0 is the integer 2 there).
            command = _loads(json.dumps(mutated).encode())
            allowed = schema.is_valid(command)
            try:
                game.decide(state, seat, command, rng)
                code = None
            except RuleViolation as violation:
                code = violation.code
            if not allowed:
                assert code is not None, ("the schema refuses, the engine accepts", command)
            elif code in FORM_CODES:
                victim = command.get("victim")
                assert isinstance(victim, int) and victim >= players, (code, command)
            checked += 1
    assert checked > 5000, checked
