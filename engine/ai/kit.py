"""What the generic search needs to know about one game: the per-game parts of a bot.

A :class:`GameKit` bundles, for one game, the greedy heuristic, the ranking of
candidate commands, the sampler that turns a seat's view into a full state
consistent with it (a *determinization*), and the evaluation of a state from a
seat's point of view. :mod:`engine.ai.search` combines them; nothing in it
knows the rules of a particular game.

Guarantees every kit keeps (tests/unit/ai checks them):
- ``greedy`` and ``candidates`` read only the view and the legal list, and return
  commands of that list (``candidates`` best first, the greedy choice first);
- ``sample(view, rng)`` returns a state ``s`` with ``game.view(s, seat) == view``:
  every fact the seat sees is kept, every hidden one drawn afresh;
- ``evaluate(state, seat)`` is in ``[0, 1]`` (1: a sure win for ``seat``) and, for a
  running game, credits each seat only with what that seat could exploit in
  ``state`` -- its own knowledge there, never the state's hidden facts as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from engine.game import Game
from engine.model import JSON
from engine.rng import RandomSource


class GameKit(Protocol):
    """The per-game parts of the bots (see the module docstring)."""

    game: Game[Any]
    default_iterations: int
    """Simulations of the strong bot when the caller names no budget."""
    horizon: int
    """Commands a rollout plays after the candidate before the state is evaluated."""

    def seat(self, view: JSON) -> int:
        """The seat whose view ``view`` is (ValueError for a spectator's view)."""
        ...

    def greedy(self, view: JSON, legal: Sequence[JSON]) -> JSON:
        """The greedy bot's command."""
        ...

    def candidates(self, view: JSON, legal: Sequence[JSON], limit: int) -> list[JSON]:
        """At most ``limit`` commands worth searching, best first by the greedy judgement."""
        ...

    def sample(self, view: JSON, rng: RandomSource) -> Any:
        """A full game state consistent with ``view``, its hidden facts drawn from ``rng``."""
        ...

    def evaluate(self, state: Any, seat: int) -> float:
        """How good ``state`` is for ``seat``, in ``[0, 1]``."""
        ...
