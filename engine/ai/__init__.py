"""Bots: pure functions of a seat's view, its legal commands and a random source.

``choose(game_name, level, view, legal, rng, budget=None, deadline=None)`` is the
whole public API (see :mod:`engine.ai.bots`); ``LEVELS`` lists the levels. Layout:
``search`` (the generic determinized search), ``rollout``, ``kit`` (what the
search needs per game), and one package per game with its observation parser,
greedy heuristic, sampler and evaluation. docs/bots.md describes them.
"""

from engine.ai.bots import GREEDY, LEVELS, RANDOM, STRONG, bot_policy, choose

__all__ = ["GREEDY", "LEVELS", "RANDOM", "STRONG", "bot_policy", "choose"]
