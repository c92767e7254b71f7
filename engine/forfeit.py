"""Forfeits: what the rules make of a seat that is out of the game -- it ran out of time
under the ``forfeit`` policy (:func:`forfeit_events`), or it resigned (``engine.resign``,
through :func:`leave_events`).

Per game (``docs/rules/*.md``, "Forfeit"):

- **Schlitzohr** plays on without the seat (``engine.schlitzohr.flow.forfeit``):
  ``SeatForfeited``, its turns skipped from then on, its ears left on the board -- ears
  belong to nobody -- and it never wins; with fewer than two seats left in, the game ends.
- **Abluxxen** ends at once: every seat's row can be abluxxed and a victim must answer,
  so the forfeiting seat's hand and row would freeze the others' play or have to be
  played by someone. ``GameEnded {reason: "forfeit"}`` with the scores as they stand
  (the running deal counts, as the view's ``scores`` show); the best of the *other*
  seats win (ties: fewest hand cards, counted as at a deal's end plus the hands now).

Pure; :func:`forfeit_events` raises ValueError for a seat that is not to act;
:func:`leave_events` trusts its caller that ``seat`` is still in a running game.
"""

from __future__ import annotations

from typing import Any

from engine.game import Game
from engine.model import Event

FORFEIT_REASON = "forfeit"
GAME_ENDED = "GameEnded"


def forfeit_events(game: Game[Any], state: Any, seat: int) -> list[Event]:
    """The events of the forfeit of ``seat``, which timed out (see the module docstring)."""
    if seat not in game.to_act(state):
        raise ValueError(f"seat {seat} is not to act: it cannot time out")
    return leave_events(game, state, seat)


def seats_out(game: Game[Any], state: Any) -> frozenset[int]:
    """The seats no longer in the game: only Schlitzohr plays on without a seat."""
    return frozenset(state.forfeited) if game.name == "schlitzohr" else frozenset()


def leave_events(game: Game[Any], state: Any, seat: int) -> list[Event]:
    """The events of ``seat`` leaving a running game, on its turn or not: a forfeit under
    each game's rule (see the module docstring)."""
    if game.name == "schlitzohr":
        # Imported here, not at the top: the games import engine helpers.
        from engine.schlitzohr.flow import forfeit

        return forfeit(state, seat)
    totals = tuple(game.scores(state))
    others = [s for s in range(len(totals)) if s != seat]
    best = max(totals[s] for s in others)
    leaders = [s for s in others if totals[s] == best]
    if game.name == "abluxxen":
        cards = [state.banked_hand_cards[s] + state.hand_size(s) for s in range(len(totals))]
        fewest = min(cards[s] for s in leaders)
        leaders = [s for s in leaders if cards[s] == fewest]
    data = {"reason": FORFEIT_REASON, "scores": list(totals), "winners": leaders, "turns": state.turn}
    return [Event(GAME_ENDED, data)]
