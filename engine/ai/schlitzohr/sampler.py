"""Determinization: a full Schlitzohr state consistent with one seat's view.

The only hidden facts during play are the colours of face-down ears the seat has
not inspected. They are drawn uniformly among all assignments consistent with
what the seat has seen: the four ears of each colour, minus the colours it
knows (face-up ears and its own inspections), shuffled onto the ears it does
not know. Everything else is copied from the view, so
``view(sample(view), seat) == view``.
"""

from __future__ import annotations

from engine.ai.schlitzohr.observe import Observation, observe
from engine.model import JSON
from engine.rng import RandomSource, shuffled
from engine.schlitzohr.material import COLOURS, JOKERS_PER_SEAT
from engine.schlitzohr.state import State


def sample(view: JSON, rng: RandomSource) -> State:
    """A state the seat cannot tell from the true one (see the module docstring)."""
    obs = observe(view)
    colour = _colours(obs, rng)
    home = [0] * len(COLOURS)
    for ear in obs.face_up:
        home[colour[ear]] += 1
    last = view["last_roll"]
    return State(
        board=obs.board,
        players=obs.players,
        turn_cap=view["options"]["turn_cap"],
        joker_six_returns=view["options"]["joker_six_returns"],
        seat_colour=obs.seat_colour,
        colour=colour,
        pos=obs.pos,
        occ=obs.occ,
        revealed=obs.face_up,
        known=obs.inspected,
        home=tuple(home),
        jokers_left=obs.jokers_left,
        # The view does not say how many jokers came back; any split with
        # left + used - returned = 3 plays identically.
        jokers_used=tuple(JOKERS_PER_SEAT - left for left in obs.jokers_left),
        jokers_returned=(0,) * obs.players,
        turn=obs.turn,
        active=view["active_seat"],
        phase=obs.phase,
        pips=obs.pips,
        inspect_count=obs.inspect_count,
        last_roll=None if last is None else (last["purpose"], last["value"]),
        result=None,
    )


def _colours(obs: Observation, rng: RandomSource) -> tuple[int, ...]:
    """Known colours kept; the remaining colours shuffled onto the unknown ears."""
    pool = [colour for colour, left in enumerate(obs.remaining) for _ in range(left)]
    drawn = iter(shuffled(rng, pool, "colours"))
    return tuple(next(drawn) if seen is None else seen for seen in obs.known)
