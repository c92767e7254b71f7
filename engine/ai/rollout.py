"""Rollouts: a sampled state played on by a policy for a bounded number of commands.

Every seat's command in a rollout is chosen from that seat's *view* of the
sampled state, never from the state itself: in a simulation, too, nobody plays
with knowledge that the rules would hide from them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, overload

from engine.game import Game, replay
from engine.model import JSON
from engine.playout import next_actor
from engine.rng import RandomSource

RolloutPolicy = Callable[[JSON, Sequence[JSON]], JSON]


class LazyLegal(Sequence[JSON]):
    """The legal commands of a seat, listed only when a policy first reads them.

    Some lists are huge and rarely needed (a Schlitzohr inspection of six of
    sixteen ears has 8008 entries; the greedy bot builds its choice from the
    view), so rollouts do not pay for them up front.
    """

    __slots__ = ("_game", "_items", "_seat", "_state")

    def __init__(self, game: Game[Any], state: Any, seat: int) -> None:
        self._game, self._state, self._seat = game, state, seat
        self._items: list[JSON] | None = None

    def _list(self) -> list[JSON]:
        if self._items is None:
            self._items = self._game.legal_commands(self._state, self._seat)
        return self._items

    @overload
    def __getitem__(self, index: int) -> JSON: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[JSON]: ...

    def __getitem__(self, index: int | slice) -> JSON | Sequence[JSON]:
        return self._list()[index]

    def __len__(self) -> int:
        return len(self._list())

    def __iter__(self) -> Iterator[JSON]:
        return iter(self._list())


def rollout(
    game: Game[Any], policy: RolloutPolicy, state: Any, rng: RandomSource, horizon: int
) -> Any:
    """``state`` after at most ``horizon`` commands chosen by ``policy`` (fewer if the game ends).

    ``rng`` draws the game's random outcomes (dice, shuffles). The policy must
    return one of the legal commands; a RuleViolation otherwise is a bug in it.
    """
    for _ in range(horizon):
        if game.result(state) is not None:
            break
        seat = next_actor(game, state)
        command = policy(game.view(state, seat), LazyLegal(game, state, seat))
        state = replay(game, game.decide(state, seat, command, rng), state)
    return state
