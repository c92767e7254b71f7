"""The rules of tabletop's games, pure: no I/O, no clock, no global random.

Entry points: :func:`engine.registry.get_game` and the :class:`engine.game.Game`
interface. ``tests/unit/test_engine_purity.py`` enforces the purity.
"""
