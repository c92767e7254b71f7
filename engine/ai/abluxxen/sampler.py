"""Determinization: a full Abluxxen state consistent with one seat's view.

The hidden facts during a deal are the other hands and the order of the draw
pile. The cards the seat cannot see (see
:meth:`~engine.ai.abluxxen.observe.Observation.unseen`) are shuffled and dealt
to the other seats in their known hand sizes; the rest, in shuffled order, is
the pile. Everything else is copied from the view, so
``view(sample(view), seat) == view``.

The view keeps no memory of cards that went into another hand in the open (a
display card drawn, a set taken back); the sampler treats those like any
unseen card -- a weaker but never wrong belief.
"""

from __future__ import annotations

from engine.abluxxen.cards import CODES, counts_of
from engine.abluxxen.state import State
from engine.ai.abluxxen.observe import observe
from engine.model import JSON
from engine.rng import RandomSource, shuffled


def sample(view: JSON, rng: RandomSource) -> State:
    """A state the seat cannot tell from the true one (see the module docstring)."""
    obs = observe(view)
    unseen = obs.unseen()
    cards = shuffled(rng, [code for code in CODES for _ in range(unseen[code])], "unseen")
    hands, dealt = [], 0
    for seat, size in enumerate(obs.hand_sizes):
        if seat == obs.seat:
            hands.append(obs.hand)
        else:
            hands.append(counts_of(cards[dealt : dealt + size]))
            dealt += size
    options = view["options"]
    return State(
        players=obs.players,
        edition=options["edition"],
        rounds=options["rounds"],
        round=view["round"],
        start_seat=view["start_seat"],
        active=obs.active,
        phase=obs.phase,
        turn=view["turn"],
        hands=tuple(hands),
        rows=obs.rows,
        display=obs.display,
        order=tuple(cards[dealt:]),
        pos=0,
        discard=obs.discard,
        victim=obs.victim,
        victims=tuple(view["victims_pending"]),
        limbo=obs.dispute,
        owed=view["owed"],
        banked=tuple(view["banked_scores"]),
        banked_hand_cards=tuple(view["banked_hand_cards"]),
        result=None,
    )


