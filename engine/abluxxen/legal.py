"""Who acts now, with which command kinds, and the complete list of legal commands.

Guarantee: exactly one seat acts while the game runs (none once it is over), and
``legal_commands`` lists exactly the commands ``decide`` accepts from that seat,
in a stable order.
"""

from __future__ import annotations

from engine.abluxxen.cards import JOKER, NUMBERS, card_to_json
from engine.abluxxen.events import FROM_DISPLAY, FROM_PILE
from engine.abluxxen.state import BONUS, CHOOSE, DRAW, PLAY, RECLAIM, State
from engine.model import JSON

KINDS_BY_PHASE: dict[str, tuple[str, ...]] = {
    PLAY: ("play",),
    CHOOSE: ("take", "leave"),
    RECLAIM: ("take_back", "discard"),
    DRAW: ("draw",),
    BONUS: ("draw", "pass"),
}
ALL_KINDS = frozenset(kind for kinds in KINDS_BY_PHASE.values() for kind in kinds)


def to_act(state: State) -> dict[int, tuple[str, ...]]:
    seat = state.actor()
    return {} if seat is None else {seat: KINDS_BY_PHASE[state.phase]}


def legal_commands(state: State, seat: int) -> list[JSON]:
    if seat != state.actor():
        return []
    phase = state.phase
    if phase == PLAY:
        return _plays(state.hands[seat])
    if phase == CHOOSE:
        return [{"kind": "take", "victim": state.victim}, {"kind": "leave", "victim": state.victim}]
    if phase == RECLAIM:
        return [{"kind": "take_back"}, {"kind": "discard"}]
    draws = _draws(state)
    return draws + [{"kind": "pass"}] if phase == BONUS else draws


def _plays(hand: tuple[int, ...]) -> list[JSON]:
    """Every set the hand can form: n x number + j jokers (n >= 1), or jokers only."""
    jokers = hand[JOKER]
    out: list[JSON] = []
    for number in NUMBERS:
        for count in range(1, hand[number] + 1):
            for j in range(jokers + 1):
                out.append({"kind": "play", "number": number, "count": count, "jokers": j})
    for j in range(1, jokers + 1):
        out.append({"kind": "play", "number": None, "count": 0, "jokers": j})
    return out


def _draws(state: State) -> list[JSON]:
    out: list[JSON] = [
        {"kind": "draw", "from": FROM_DISPLAY, "card": card_to_json(code)}
        for code, n in enumerate(state.display)
        if n
    ]
    if state.pile_size:
        out.append({"kind": "draw", "from": FROM_PILE})
    return out
