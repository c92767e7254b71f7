"""Abluxxen (Kramer & Kiesling): play sets of equal numbers, abluxx opponents' top sets.

Modules, one job each:
- ``cards``   card codes, the 109-card deck, multisets as count tuples, JSON form;
- ``sets``    a played set, its value, and the abluxx comparison;
- ``state``   the immutable game state and its phases;
- ``events``  event type names and constructors (the stored JSON form);
- ``evolve``  state + event -> state (never draws randomness);
- ``deal``    the events that shuffle and deal one round;
- ``flow``    the automatic steps after a decision (refill, next victim, turn and deal end);
- ``decide``  command parsing and validation -> events;
- ``legal``   who acts now and the complete list of legal commands;
- ``scoring`` deal scores, totals, winners;
- ``views``   what a seat (or a spectator) may see;
- ``game``    the :class:`engine.game.Game` implementation, ``GAME``.

The rules page is ``docs/rules/abluxxen.md``.
"""
