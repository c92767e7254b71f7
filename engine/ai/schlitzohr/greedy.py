"""The greedy Schlitzohr bot: the best-looking command by one-move judgement.

Per phase (values in ears, see :mod:`engine.ai.schlitzohr.heuristics`):

- turn start: spend a joker to look at ears while the seat knows none of its own
  face-down ears and a look is likely to find one; otherwise roll;
- after a 6: the best of placing an ear (a known own ear, or an unknown one whose
  odds favour the seat), peeking (worth the own ears it is expected to find) and
  moving six pips (the value of the greedy step plan);
- moving: the step that most improves the seat's prospects -- own known ears
  towards a free target, ears opponents have inspected away from one;
- inspecting: ears of unknown colour, those nearest to a target first.

:func:`scored` lists the commands it considered with their values; the strong
bot searches among the best of them (:func:`ranked`).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.ai.schlitzohr import heuristics as h
from engine.ai.schlitzohr.distance import field_distances
from engine.ai.schlitzohr.observe import Observation, observe
from engine.model import JSON
from engine.schlitzohr import specs
from engine.schlitzohr.state import EMPTY, INSPECT, MOVING, SIX, START

SIX_PIPS = 6
"""Pips of a move chosen after a 6."""

MEAN_LOOKS = 3.5
"""Ears a peek or joker looks at on average (one die roll)."""

JOKER_THRESHOLD = 0.75
"""Expected own ears a look must find before a joker is worth its 2 points."""


def greedy(view: JSON, legal: Sequence[JSON]) -> JSON:
    """The greedy command for the seat whose ``view`` this is; one of ``legal``."""
    # max() keeps the first of equal values: ties go to the earlier option.
    return max(scored(observe(view), legal), key=_value)[1]


def ranked(obs: Observation, legal: Sequence[JSON]) -> list[tuple[float, JSON]]:
    """:func:`scored`, best first (a stable sort: ties keep their order)."""
    return sorted(scored(obs, legal), key=_value, reverse=True)


def scored(obs: Observation, legal: Sequence[JSON]) -> list[tuple[float, JSON]]:
    """The commands worth considering, each with its value.

    In the inspect phase only the greedy choice is listed: ``legal`` may hold
    thousands of ear sets and is never read there (see
    :class:`engine.ai.rollout.LazyLegal`).
    """
    if obs.phase == START:
        return _start(obs, legal)
    judge = h.Judge.of(obs)
    if obs.phase == SIX:
        return _six(judge, legal)
    if obs.phase == MOVING:
        return _move_scores(judge, legal)
    if obs.phase == INSPECT:
        return [(0.0, {"kind": specs.INSPECT, "ears": _inspect_choice(judge)})]
    return [(0.0, legal[0])]  # no other phase lets a seat act; kept total for safety


def _value(option: tuple[float, JSON]) -> float:
    return option[0]


def _start(obs: Observation, legal: Sequence[JSON]) -> list[tuple[float, JSON]]:
    roll = {"kind": specs.ROLL}
    if not any(c["kind"] == specs.JOKER for c in legal):
        return [(0.0, roll)]
    wants_look = not h.own_known_face_down(obs) and (
        h.expected_own_found(obs, MEAN_LOOKS) >= JOKER_THRESHOLD
    )
    joker = {"kind": specs.JOKER}
    return [(1.0, joker), (0.0, roll)] if wants_look else [(1.0, roll), (0.0, joker)]


def _six(judge: h.Judge, legal: Sequence[JSON]) -> list[tuple[float, JSON]]:
    peek_value = h.expected_own_found(judge.obs, MEAN_LOOKS) * h.KNOWING_VALUE
    places = [(judge.place_gain(c["ear"]), c) for c in _one_place_per_ear(legal)]
    moves = _move_scores(judge, legal)
    if moves:
        # A move is judged by the whole six-pip plan, which starts with the best step.
        best = max(range(len(moves)), key=lambda i: moves[i][0])
        moves[best] = (plan_move(judge, SIX_PIPS), moves[best][1])
    return [(peek_value, {"kind": specs.PEEK}), *places, *moves]


def _one_place_per_ear(legal: Sequence[JSON]) -> list[JSON]:
    """The first listed placement of each ear: which free target it goes to is irrelevant."""
    seen: set[int] = set()
    out = []
    for command in legal:
        if command["kind"] == specs.PLACE and command["ear"] not in seen:
            seen.add(command["ear"])
            out.append(command)
    return out


def _move_scores(judge: h.Judge, legal: Sequence[JSON]) -> list[tuple[float, JSON]]:
    gain, pos, index = judge.gain, judge.obs.pos, judge.obs.board.index
    return [
        (gain(c["ear"], pos[c["ear"]], index[c["to"]]), c) for c in legal if c["kind"] == specs.MOVE
    ]


def plan_move(judge: h.Judge, pips: int) -> float:
    """The value of spending ``pips`` by greedy steps, on a copy of the position."""
    obs = judge.obs
    board = obs.board
    pos, occ, up = list(obs.pos), list(obs.occ), set(obs.face_up)
    total = 0.0
    while pips > 0:
        dist = field_distances(board, tuple(occ))
        options = h.steps(obs, tuple(pos), tuple(occ), frozenset(up), pips)
        if not options:
            break
        value, ear, dst = max((judge.gain(e, pos[e], d, dist), e, d) for e, d in options)
        src = pos[ear]
        (sf, sr), (df, dr) = board.coords(src), board.coords(dst)
        pips -= abs(df - sf) + abs(dr - sr)
        total += value
        occ[src], occ[dst], pos[ear] = EMPTY, ear, dst
        if board.target_colour[dst] >= 0:
            up.add(ear)
    return total


def _inspect_choice(judge: h.Judge) -> list[int]:
    """Unknown ears nearest to a target first, then known ones to make up the count."""
    obs, dist = judge.obs, judge.dist
    order = sorted(
        obs.face_down(), key=lambda ear: (obs.known[ear] is not None, dist[obs.pos[ear]], ear)
    )
    return sorted(order[: obs.inspect_count])
