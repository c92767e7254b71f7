"""The events that shuffle and deal one round (used by setup and between deals).

Guarantee: all 109 cards are shuffled afresh for every deal, with the purpose
label ``deal{round}/shuffle`` (unique within a game, so every deal gets an
independent order that a verifier can recompute from the revealed seed). Hands
are dealt in 13-card blocks from the top of the order, seat 0 first, then the
6 display cards; the rest is the draw pile, in order.
"""

from __future__ import annotations

from engine.abluxxen import events as ev
from engine.abluxxen.cards import deck
from engine.abluxxen.state import DISPLAY_SIZE, HAND_SIZE
from engine.model import Event
from engine.rng import RandomSource, shuffled


def shuffle_purpose(round_no: int) -> str:
    return f"deal{round_no}/shuffle"


def deal_events(players: int, round_no: int, start_seat: int, rng: RandomSource) -> list[Event]:
    """``DeckShuffled``, one ``HandDealt`` per seat, then ``DisplayDealt``."""
    order = shuffled(rng, deck(), shuffle_purpose(round_no))
    out = [ev.deck_shuffled(round_no, start_seat, order)]
    for seat in range(players):
        out.append(ev.hand_dealt(seat, order[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]))
    dealt = players * HAND_SIZE
    display = order[dealt : dealt + DISPLAY_SIZE]
    out.append(ev.display_dealt(display, len(order) - dealt - DISPLAY_SIZE))
    return out
