"""Abluxxen's event types and their constructors: the stored, public JSON form.

Cards appear in their JSON form (int 1..13 or "X"); sets as
``{"number", "count", "jokers"}``. Hidden facts live in ``private``:
the shuffled order (nobody), a dealt hand (its owner), a card drawn from the
pile (the drawer). Everything else is public. Names and fields never change
meaning once published; docs/rules/abluxxen.md lists them with examples.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.abluxxen.cards import card_to_json, codes_to_json
from engine.abluxxen.sets import CardSet
from engine.model import Event

GAME_STARTED = "GameStarted"
DECK_SHUFFLED = "DeckShuffled"
HAND_DEALT = "HandDealt"
DISPLAY_DEALT = "DisplayDealt"
SET_PLAYED = "SetPlayed"
ABLUXXED = "Abluxxed"
SET_REMOVED = "SetRemoved"
SET_TAKEN = "SetTaken"
SET_LEFT = "SetLeft"
SET_TAKEN_BACK = "SetTakenBack"
SET_DISCARDED = "SetDiscarded"
CARD_DRAWN = "CardDrawn"
DRAW_DECLINED = "DrawDeclined"
DISPLAY_REFILLED = "DisplayRefilled"
TURN_PASSED = "TurnPassed"
DEAL_ENDED = "DealEnded"
GAME_ENDED = "GameEnded"

FROM_DISPLAY = "display"
FROM_PILE = "pile"


def game_started(players: int, edition: str, rounds: int) -> Event:
    return Event(
        GAME_STARTED, {"players": players, "options": {"edition": edition, "rounds": rounds}}
    )


def deck_shuffled(round_no: int, start_seat: int, order: Sequence[int]) -> Event:
    """The shuffle outcome: its order is private to nobody during play."""
    data = {"round": round_no, "start_seat": start_seat, "size": len(order)}
    return Event(DECK_SHUFFLED, data, {"order": codes_to_json(order)}, ())


def hand_dealt(seat: int, cards: Sequence[int]) -> Event:
    data = {"seat": seat, "size": len(cards)}
    return Event(HAND_DEALT, data, {"cards": codes_to_json(cards)}, (seat,))


def display_dealt(cards: Sequence[int], pile_size: int) -> Event:
    return Event(DISPLAY_DEALT, {"cards": codes_to_json(cards), "pile_size": pile_size})


def set_played(seat: int, played: CardSet) -> Event:
    return Event(SET_PLAYED, {"seat": seat, "set": played.to_json()})


def abluxxed(seat: int, victims: Sequence[int]) -> Event:
    return Event(ABLUXXED, {"seat": seat, "victims": list(victims)})


def set_removed(victim: int, lost: CardSet) -> Event:
    """The victim's top set leaves its row (into limbo until resolved)."""
    return Event(SET_REMOVED, {"seat": victim, "set": lost.to_json()})


def set_taken(seat: int, victim: int, lost: CardSet) -> Event:
    return Event(SET_TAKEN, {"seat": seat, "victim": victim, "set": lost.to_json()})


def set_left(seat: int, victim: int) -> Event:
    return Event(SET_LEFT, {"seat": seat, "victim": victim})


def set_taken_back(victim: int, lost: CardSet) -> Event:
    return Event(SET_TAKEN_BACK, {"seat": victim, "set": lost.to_json()})


def set_discarded(victim: int, lost: CardSet) -> Event:
    return Event(SET_DISCARDED, {"seat": victim, "set": lost.to_json()})


def drawn_from_display(seat: int, code: int) -> Event:
    return Event(CARD_DRAWN, {"seat": seat, "from": FROM_DISPLAY, "card": card_to_json(code)})


def drawn_from_pile(seat: int, code: int) -> Event:
    """Everyone sees that a pile card was drawn; only the drawer sees which."""
    return Event(
        CARD_DRAWN, {"seat": seat, "from": FROM_PILE}, {"card": card_to_json(code)}, (seat,)
    )


def draw_declined(seat: int) -> Event:
    return Event(DRAW_DECLINED, {"seat": seat})


def display_refilled(cards: Sequence[int], pile_size: int) -> Event:
    return Event(DISPLAY_REFILLED, {"cards": codes_to_json(cards), "pile_size": pile_size})


def turn_passed(seat: int, next_seat: int) -> Event:
    return Event(TURN_PASSED, {"seat": seat, "next": next_seat})


def deal_ended(
    round_no: int,
    reason: str,
    deal_scores: Sequence[int],
    hand_sizes: Sequence[int],
    scores: Sequence[int],
) -> Event:
    data = {
        "round": round_no,
        "reason": reason,
        "deal_scores": list(deal_scores),
        "hand_sizes": list(hand_sizes),
        "scores": list(scores),
    }
    return Event(DEAL_ENDED, data)


def game_ended(reason: str, scores: Sequence[int], winners: Sequence[int], turns: int) -> Event:
    data = {"reason": reason, "scores": list(scores), "winners": list(winners), "turns": turns}
    return Event(GAME_ENDED, data)
