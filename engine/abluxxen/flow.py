"""The automatic steps that follow a decision, within the same command.

``decide`` validates a command and emits its direct event; the functions here
emit what the rules then make happen by themselves: abluxxing, moving to the
next victim, refilling the display, passing the turn, ending a deal (and
dealing the next one or ending the game). They work on a :class:`Batch`, which
applies every event with ``evolve`` as it is emitted, so each step sees the
true state and no rule is computed twice.
"""

from __future__ import annotations

from engine.abluxxen import events as ev
from engine.abluxxen.deal import deal_events
from engine.abluxxen.evolve import evolve
from engine.abluxxen.scoring import deal_scores, hand_sizes, winners
from engine.abluxxen.sets import victims_of
from engine.abluxxen.state import DISPLAY_SIZE, DRAW, State
from engine.model import Event
from engine.rng import RandomSource

LAST_CARD_PLAYED = "last_card_played"
CARDS_EXHAUSTED = "cards_exhausted"
AMIGO = "amigo"


class Batch:
    """The events of one command, and the state after the last of them."""

    __slots__ = ("state", "events")

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


def after_play(b: Batch, rng: RandomSource) -> None:
    """After ``SetPlayed``: deal end (empty hand), abluxx, amigo bonus, or turn end."""
    s = b.state
    seat = s.active
    if s.hand_size(seat) == 0:  # the last hand card ends the deal at once: no abluxx
        end_deal(b, LAST_CARD_PLAYED, rng)
        return
    victims = victims_of(s.rows, seat, s.rows[seat][-1])
    if victims:
        b.emit(ev.abluxxed(seat, victims))
        next_victim(b)
    elif s.edition != AMIGO:
        end_turn(b)
    # else: amigo bonus phase -- the active seat draws one card or passes.


def next_victim(b: Batch) -> None:
    """Remove the next victim's top set from its row, or end the turn if none is left."""
    s = b.state
    if s.victims:
        victim = s.victims[0]
        b.emit(ev.set_removed(victim, s.rows[victim][-1]))
    else:
        end_turn(b)


def victim_done(b: Batch) -> None:
    """The current victim has its cards: refill the display, then the next victim."""
    refill(b)
    next_victim(b)


def after_draw(b: Batch, rng: RandomSource) -> None:
    """After ``CardDrawn``: deal end if nothing is left to draw, else continue.

    **[house]** "Nothing left" means pile and display both empty, whichever was
    emptied last, so a seat that must draw always has a card to draw.
    """
    s = b.state
    if s.pile_size == 0 and s.display_size == 0:
        end_deal(b, CARDS_EXHAUSTED, rng)  # cards still owed are not drawn
    elif s.phase == DRAW:
        if s.owed == 0:
            victim_done(b)
    else:  # the amigo bonus draw
        refill(b)
        end_turn(b)


def end_turn(b: Batch) -> None:
    """Pass the turn clockwise."""
    s = b.state
    b.emit(ev.turn_passed(s.active, (s.active + 1) % s.players))


def refill(b: Batch) -> None:
    """Top the display up to 6 from the pile, as far as the pile allows."""
    s = b.state
    n = min(DISPLAY_SIZE - s.display_size, s.pile_size)
    if n > 0:
        b.emit(ev.display_refilled(s.order[s.pos : s.pos + n], s.pile_size - n))


def end_deal(b: Batch, reason: str, rng: RandomSource) -> None:
    """Score the deal; deal the next one (start seat moves clockwise) or end the game."""
    s = b.state
    scores = deal_scores(s)
    totals = tuple(a + d for a, d in zip(s.banked, scores))
    b.emit(ev.deal_ended(s.round, reason, scores, hand_sizes(s), totals))
    s = b.state
    if s.round < s.rounds:
        for event in deal_events(s.players, s.round + 1, (s.start_seat + 1) % s.players, rng):
            b.emit(event)
    else:
        b.emit(ev.game_ended(reason, totals, winners(totals, s.banked_hand_cards), s.turn))
