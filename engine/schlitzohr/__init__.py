"""Schlitzohr (H. P. Pauly): find your hidden ears and bring them to your target fields.

``game.GAME`` implements :class:`engine.game.Game`. One module per concern:
``board`` (layouts as data), ``material`` (colours, seats), ``state``, ``setup``,
``evolve``, ``decide`` (+ ``parse``, ``moves``, ``flow``), ``legal``, ``views``,
``invariants``, ``events`` (the stored JSON contract), ``errors`` (codes), ``specs``.
The rules as played: docs/rules/schlitzohr.md.
"""
