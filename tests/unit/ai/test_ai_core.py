"""The generic parts of the bots: scoped randomness, lazy legal lists, rollouts, search."""

from __future__ import annotations

from typing import Any

from ai_positions import random_position

from engine.ai.kits import kit_for
from engine.ai.randomness import ScopedRandom, derived
from engine.ai.rollout import LazyLegal, rollout
from engine.ai.search import search
from engine.registry import get_game
from engine.rng import SeededRandom


class Recording:
    """A random source that records the purposes it is asked for."""

    def __init__(self) -> None:
        self.purposes: list[str] = []

    def randbelow(self, n: int, purpose: str) -> int:
        self.purposes.append(purpose)
        return 0


def test_scoped_random_puts_every_purpose_under_its_prefix() -> None:
    inner = Recording()
    ScopedRandom(inner, "pick/7").randbelow(6, "world/0/fate")
    assert inner.purposes == ["pick/7/world/0/fate"]


def test_derived_sources_are_independent_and_repeatable() -> None:
    rng = SeededRandom(b"parent", "bot")
    one, again, other = derived(rng, "a", "fate"), derived(rng, "a", "fate"), derived(rng, "b", "fate")
    draws = [[s.randbelow(1 << 30, f"{i}") for i in range(4)] for s in (one, again, other)]
    assert draws[0] == draws[1] != draws[2]


class CountingGame:
    """A game wrapper that counts calls of ``legal_commands``."""

    def __init__(self, game: Any) -> None:
        self.game, self.calls = game, 0

    def legal_commands(self, state: Any, seat: int) -> list[Any]:
        self.calls += 1
        return self.game.legal_commands(state, seat)  # type: ignore[no-any-return]


def test_lazy_legal_lists_only_when_read_and_only_once() -> None:
    position = random_position("schlitzohr", 2, b"lazy", 3)
    counting = CountingGame(position.game)
    lazy = LazyLegal(counting, position.state, position.seat)  # type: ignore[arg-type]
    assert counting.calls == 0
    assert list(lazy) == position.legal and len(lazy) == len(position.legal)
    assert lazy[0] == position.legal[0] and lazy[-1] == position.legal[-1]
    assert counting.calls == 1


def test_a_rollout_stops_at_its_horizon_or_the_end() -> None:
    game = get_game("abluxxen")
    kit = kit_for("abluxxen")
    position = random_position("abluxxen", 2, b"rollout", 0)
    rng = SeededRandom(b"fate", "fate")
    short = rollout(game, kit.greedy, position.state, rng, 3)
    assert short.turn <= position.state.turn + 3 and game.result(short) is None
    finished = rollout(game, kit.greedy, position.state, rng, 10_000)
    assert game.result(finished) is not None


def test_a_single_candidate_is_returned_without_search() -> None:
    # An inspection: greedy picks the ears, there is nothing to compare.
    kit = kit_for("schlitzohr")
    for depth in range(40):
        position = random_position("schlitzohr", 2, b"inspect", depth)
        if position.view["phase"] == "inspect":
            break
    assert position.view["phase"] == "inspect"
    recording = Recording()
    command = search(kit, position.view, position.legal, recording, iterations=100)
    assert command == kit.greedy(position.view, position.legal)
    assert recording.purposes == []
