"""The immutable state of an Abluxxen game and its phases.

The state is the fold of the game's events (see ``evolve``); it holds the whole
truth, hidden parts included, and is never shown as is (see ``views``).

Phases and who acts in them:
- ``play``    the active seat plays a set;
- ``choose``  the active seat takes or leaves the current victim's set;
- ``reclaim`` the current victim takes its set back or discards it;
- ``draw``    the current victim draws the cards it owes, one per command;
- ``bonus``   (edition amigo, nobody abluxxed) the active seat draws one card or passes;
- ``dealing`` between events of one command only (a deal being set up);
- ``over``    the game has ended; nobody acts.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.abluxxen.cards import EMPTY, Counts
from engine.abluxxen.sets import CardSet
from engine.frozen import replacer
from engine.model import Result

PLAY = "play"
CHOOSE = "choose"
RECLAIM = "reclaim"
DRAW = "draw"
BONUS = "bonus"
DEALING = "dealing"
OVER = "over"

DISPLAY_SIZE = 6
HAND_SIZE = 13


@dataclass(frozen=True, slots=True)
class State:
    """Everything about one game. Tuples only, so the value is immutable and hashable.

    The draw pile is ``order[pos:]``: ``order`` is this deal's shuffled deck and
    ``pos`` the number of cards dealt or drawn from it, so drawing never copies
    the pile. ``victim`` is the seat being resolved (its set is in ``limbo`` until
    taken, left-and-reclaimed or discarded); ``victims`` are those still to come,
    clockwise. ``owed`` counts the cards the drawing victim still has to draw.
    """

    players: int
    edition: str
    rounds: int
    round: int = 0
    start_seat: int = 0
    active: int = 0
    phase: str = DEALING
    turn: int = 0
    hands: tuple[Counts, ...] = ()
    rows: tuple[tuple[CardSet, ...], ...] = ()
    display: Counts = EMPTY
    order: tuple[int, ...] = ()
    pos: int = 0
    discard: Counts = EMPTY
    victim: int | None = None
    victims: tuple[int, ...] = ()
    limbo: CardSet | None = None
    owed: int = 0
    banked: tuple[int, ...] = ()
    banked_hand_cards: tuple[int, ...] = ()
    result: Result | None = None

    @property
    def pile_size(self) -> int:
        return len(self.order) - self.pos

    @property
    def display_size(self) -> int:
        return sum(self.display)

    def hand_size(self, seat: int) -> int:
        return sum(self.hands[seat])

    def actor(self) -> int | None:
        """The one seat that must act now, or None (game over / mid-deal)."""
        phase = self.phase
        if phase in (PLAY, CHOOSE, BONUS):
            return self.active
        if phase in (RECLAIM, DRAW):
            return self.victim
        return None


updated = replacer(State)
"""``dataclasses.replace`` for a State, without its per-field introspection
(``evolve`` runs it for every event of every playout). Unknown names raise KeyError."""
