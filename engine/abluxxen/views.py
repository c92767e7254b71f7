"""What a seat (or a spectator) may see, as JSON.

Guarantee: while the game runs, a view holds only public facts plus the viewer's
own hand -- never another seat's hand, the pile's order or any pile card, or the
seed. Cards the viewer drew from the pile show up only as part of its own hand.
Once the game is over the view adds every hand and the undrawn pile.
"""

from __future__ import annotations

from engine.abluxxen.cards import codes_to_json, counts_to_json
from engine.abluxxen.legal import KINDS_BY_PHASE
from engine.abluxxen.scoring import current_scores
from engine.abluxxen.state import OVER, State
from engine.model import JSON


def view(state: State, seat: int | None) -> JSON:
    """The view of ``seat``; None, or a seat not in the game, sees what a spectator sees."""
    own = (
        seat
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < state.players
        else None
    )
    actor = state.actor()
    out: JSON = {
        "game": "abluxxen",
        "players": state.players,
        "options": {"edition": state.edition, "rounds": state.rounds},
        "round": state.round,
        "start_seat": state.start_seat,
        "turn": state.turn,
        "active": state.active,
        "phase": state.phase,
        "to_act": None
        if actor is None
        else {"seat": actor, "kinds": list(KINDS_BY_PHASE[state.phase])},
        "seat": own,
        "hand": None if own is None or not state.hands else counts_to_json(state.hands[own]),
        "hand_sizes": [sum(hand) for hand in state.hands],
        "rows": [[played.to_json() for played in row] for row in state.rows],
        "display": counts_to_json(state.display),
        "pile_size": state.pile_size,
        "discard": counts_to_json(state.discard),
        "victim": state.victim,
        "victims_pending": list(state.victims),
        "set_in_dispute": None if state.limbo is None else state.limbo.to_json(),
        "owed": state.owed,
        "scores": list(current_scores(state)),
        "banked_scores": list(state.banked),
        "banked_hand_cards": list(state.banked_hand_cards),
        "result": None if state.result is None else state.result.to_json(),
    }
    if state.phase == OVER:  # after the end the whole history is public
        out["hands"] = [counts_to_json(hand) for hand in state.hands]
        out["pile"] = codes_to_json(state.order[state.pos :])
    return out
