"""Resigning: a seat gives up a running game, on its turn or not. A rule of the table,
the same for every game, not of any one game's rules (``docs/rules/*.md``, "Resigning").

A seat still in a running game may send ``{"kind": "resign"}`` at any time. The rules
then make of it exactly what they make of a seat that timed out under the ``forfeit``
policy (``engine.forfeit.leave_events``): in Schlitzohr the seat is out and the others
play on (the game ends once fewer than two are left in); Abluxxen ends at once. The
resigning seat never wins.

Why a table rule and not a command of each game: ``Game.legal_commands`` must list every
command ``Game.decide`` accepts, and the bots, the load generator and any client that
picks from ``/legal`` would then resign at random. So ``resign`` is never in ``/legal``;
:func:`decide` is the one entry for a seat's command, used alike by the application
(``service.app.application``) and by the verifier's re-run (``events.audit.rerun``), so
a recorded resignation verifies like any command.

Pure. :func:`decide` raises only :class:`~engine.errors.RuleViolation`:
``malformed_command`` (a resignation with other fields), ``game_over``,
``invalid_seat``, ``seat_out`` (the seat resigned or forfeited already), and whatever
the game's own ``decide`` raises.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.commands import exact_fields
from engine.errors import GAME_OVER, INVALID_SEAT, SEAT_OUT, UNKNOWN_COMMAND, RuleViolation
from engine.forfeit import leave_events, seats_out
from engine.game import Game
from engine.model import CommandSpec, Event
from engine.rng import RandomSource

RESIGN = "resign"

RESIGN_SPEC = CommandSpec(
    kind=RESIGN,
    description=(
        "Give up this game, on your turn or not (every game; never listed by /legal). "
        "Schlitzohr plays on without you, Abluxxen ends at once; you do not win."
    ),
    example={"kind": RESIGN},
)


def is_resignation(command: Any) -> bool:
    """Whether ``command`` claims to be a resignation (its fields are checked later)."""
    return isinstance(command, Mapping) and command.get("kind") == RESIGN


def decide(game: Game[Any], state: Any, seat: int, command: Any, rng: RandomSource) -> list[Event]:
    """The events of ``seat``'s ``command``: a resignation under the table's rule, anything
    else under the game's own (``game.decide``, which draws from ``rng``)."""
    if not is_resignation(command):
        try:
            return game.decide(state, seat, command, rng)
        except RuleViolation as refused:
            if refused.code == UNKNOWN_COMMAND and "kinds" in refused.details:
                # The kinds a client may send include the table's own.
                refused.details["kinds"] = sorted([*refused.details["kinds"], RESIGN])
            raise
    exact_fields(command)
    if game.result(state) is not None:
        raise RuleViolation(GAME_OVER, "the game is over")
    seats = len(game.scores(state))
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
        raise RuleViolation(INVALID_SEAT, "no such seat", {"seat": seat})
    if seat in seats_out(game, state):
        raise RuleViolation(SEAT_OUT, "this seat has left the game already", {"seat": seat})
    return leave_events(game, state, seat)
