"""The greedy Abluxxen bot: the best-looking command by one-move judgement.

Values are in points from the seat's point of view (a card in the row +1, in the
hand -1; a point an opponent loses counts ``1 / (players - 1)``):

- play: every card played is worth 2; a set that abluxxes is worth twice the
  victims' set sizes more; a set that opponents can easily beat, a joker spent,
  a number split, all cost; emptying the hand ends the deal and is worth most;
- take or leave a victim's set: take it only if it joins a number in hand (or is
  all jokers) and the deal has time left to play it;
- take back or discard: take back a ready set (two or more cards, or a number
  in hand); otherwise discard and draw;
- draw: a joker, else the display card that joins the biggest group in hand,
  else the unknown pile card; the amigo bonus draws only such a useful card.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.abluxxen.cards import JOKER, NUMBERS, card_from_json
from engine.abluxxen.sets import CardSet, victims_of
from engine.abluxxen.state import BONUS, CHOOSE, DRAW, PLAY, RECLAIM
from engine.ai.abluxxen.observe import Observation, observe
from engine.model import JSON

JOKER_KEEP = 1.0
"""Points a joker is worth kept in hand (it enlarges or lifts a later set)."""
SPLIT_COST = 1.5
"""Points lost by leaving cards of the played number in hand (another turn to play them)."""
GO_OUT = 10.0
"""Points for emptying the hand: the deal ends while the others still hold cards."""
RISK_BY_SIZE = (0.0, 0.8, 0.45, 0.2, 0.08, 0.03)
"""Chance, by set size, that one opponent can match a set's size (before its value)."""
TIME_TO_PLAY = 12
"""Pile cards left below which taken cards will likely not be played in time."""
JOKER_DRAW = 2.5
"""Value of drawing a joker, in group sizes (see :func:`_draw_value`)."""
PILE_DRAW = 0.5
"""Value of an unknown pile card: about the chance it matches a group in hand."""
BONUS_MIN = 2.0
"""Draw value the amigo bonus card needs; a card that joins nothing only costs a point."""


def greedy(view: JSON, legal: Sequence[JSON]) -> JSON:
    """The greedy command for the seat whose ``view`` this is; one of ``legal``."""
    return scored(observe(view), legal)[0][1]


def scored(obs: Observation, legal: Sequence[JSON]) -> list[tuple[float, JSON]]:
    """Every legal command with its value, best first (ties keep the legal order)."""
    phase = obs.phase
    if phase == PLAY:
        options = [(_play_value(obs, c), c) for c in legal]
    elif phase == CHOOSE:
        options = [(_take_value(obs) if c["kind"] == "take" else 0.0, c) for c in legal]
    elif phase == RECLAIM:
        options = [(_take_back_value(obs) if c["kind"] == "take_back" else 0.0, c) for c in legal]
    elif phase in (DRAW, BONUS):
        options = [(_draw_value(obs, c), c) for c in legal]
    else:  # no other phase lets a seat act; kept total for safety
        options = [(0.0, c) for c in legal]
    return sorted(options, key=lambda option: -option[0])


def _weight(obs: Observation) -> float:
    return 1.0 / (obs.players - 1)


def _play_value(obs: Observation, command: JSON) -> float:
    played = CardSet(command["number"], command["count"], command["jokers"])
    size = played.size
    if size == sum(obs.hand):
        return GO_OUT + 2 * size
    rows = list(obs.rows)
    rows[obs.seat] = rows[obs.seat] + (played,)
    victims = victims_of(rows, obs.seat, played)
    value = 2 * size + 2 * _weight(obs) * sum(_size_of(obs.top(v)) for v in victims)
    value -= 2 * size * _risk(obs, played)
    value -= JOKER_KEEP * played.jokers
    if played.number is not None and played.count < obs.hand[played.number]:
        value -= SPLIT_COST
    return value


def _size_of(top: CardSet | None) -> int:
    return 0 if top is None else top.size


def _risk(obs: Observation, played: CardSet) -> float:
    """Rough chance that an opponent abluxxes ``played`` before the seat plays again."""
    unseen = obs.unseen()
    total = sum(unseen)
    if total == 0 or played.number is None:
        return 0.0
    higher = unseen[JOKER] + sum(unseen[n] for n in NUMBERS if n > played.number)
    per_opponent = RISK_BY_SIZE[min(played.size, len(RISK_BY_SIZE) - 1)] * higher / total
    return min(1.0, per_opponent * (obs.players - 1))


def _take_value(obs: Observation) -> float:
    """Taking the victim's set: worth its size if the cards join the hand and time allows."""
    dispute = obs.dispute
    if dispute is None or obs.pile_size < TIME_TO_PLAY:
        return -1.0
    joins = dispute.number is None or obs.hand[dispute.number] > 0
    return dispute.size - 0.5 if joins else -1.0


def _take_back_value(obs: Observation) -> float:
    dispute = obs.dispute
    if dispute is None:
        return 0.0
    ready = dispute.size >= 2 or (dispute.number is not None and obs.hand[dispute.number] > 0)
    return 1.0 if ready else -1.0


def _draw_value(obs: Observation, command: JSON) -> float:
    """A drawn card's worth: the size of the hand group it joins (joker and pile fixed)."""
    if command["kind"] == "pass":
        return BONUS_MIN if obs.phase == BONUS else 0.0
    if command["from"] == "pile":
        return PILE_DRAW
    code = card_from_json(command["card"])
    if code is None:  # not a card: cannot come from a legal list
        return 0.0
    return JOKER_DRAW if code == JOKER else float(obs.hand[code])
