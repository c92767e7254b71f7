"""The bots' one entry point: ``choose`` a command for a seat from its view.

A bot is a pure function of (the seat's view, its legal commands, a random
source, a budget): it never receives the game state, so it cannot read what the
rules hide from the seat. The RQ worker and ``tabletop simulate --bots`` call
exactly this.

Levels:
- ``random``: uniform over the legal commands;
- ``greedy``: the per-game one-move heuristic (``engine.ai.<game>.greedy``);
- ``strong``: determinized Monte Carlo search over the seat's information set
  (:mod:`engine.ai.search`), with a budget in simulations.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.ai.kits import kit_for
from engine.ai.randomness import ScopedRandom
from engine.ai.search import Deadline, search
from engine.model import JSON
from engine.playout import Policy
from engine.rng import RandomSource

RANDOM, GREEDY, STRONG = "random", "greedy", "strong"
LEVELS: tuple[str, ...] = (RANDOM, GREEDY, STRONG)


def choose(
    game_name: str,
    level: str,
    view: JSON,
    legal: Sequence[JSON],
    rng: RandomSource,
    budget: int | None = None,
    deadline: Deadline | None = None,
) -> JSON:
    """The command the bot of ``level`` sends; always an element of ``legal``.

    ``view`` must be the acting seat's own view (``game.view(state, seat)``) and
    ``legal`` its non-empty legal commands. ``budget`` is the strong bot's number
    of simulations (None: the game's default, see docs/bots.md); other levels
    ignore it. ``deadline`` (strong only) is called between simulations and ends
    the search once it returns True -- the engine reads no clock, so the caller
    brings one. Without a deadline the result is a pure function of the arguments.

    Raises RuleViolation ``unknown_game``, ValueError for an unknown level, an
    empty ``legal``, a budget below 1 or a spectator's view.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; levels: {', '.join(LEVELS)}")
    if not legal:
        raise ValueError("a bot needs at least one legal command")
    if budget is not None and budget < 1:
        raise ValueError("a budget is at least one simulation")
    kit = kit_for(game_name)
    if level == RANDOM:
        return legal[rng.randbelow(len(legal), "random")]
    if level == GREEDY:
        command = kit.greedy(view, legal)
    else:
        iterations = kit.default_iterations if budget is None else budget
        command = search(kit, view, legal, rng, iterations, deadline)
    return _listed(command, legal)


def bot_policy(game_name: str, level: str, budget: int | None = None) -> Policy:
    """``choose`` as an :data:`engine.playout.Policy`, for playouts and simulations."""

    def policy(view: JSON, legal: list[JSON], rng: RandomSource, purpose: str) -> JSON:
        # The playout gives every decision a fresh purpose on one shared source.
        return choose(game_name, level, view, legal, ScopedRandom(rng, purpose), budget)

    return policy


def _listed(command: JSON, legal: Sequence[JSON]) -> JSON:
    """The element of ``legal`` equal to ``command``; a bot bug if there is none."""
    for candidate in legal:
        if candidate == command:
            return candidate
    raise AssertionError(f"bot chose an unlisted command {command!r}")
