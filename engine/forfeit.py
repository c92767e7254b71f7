"""Forfeits: what the rules make of a seat that ran out of time under the ``forfeit`` policy.

Both games end at once (``docs/rules/*.md``, "Forfeit"): their rules have no way to
play on with a seat gone -- in Abluxxen every seat's row can be abluxxed and a victim
must answer, in Schlitzohr every seat's ears stay on the board and may be owned by
anyone, so skipping a seat would change the game for the others. The game ends with
``GameEnded {reason: "forfeit"}``, the scores as they stand (the running deal counts,
as the ``scores`` of a running game show), and the best of the *other* seats win: the
forfeiting seat never wins. Ties follow each game's rule (Abluxxen: fewest hand cards,
counted as at a deal's end plus the hands now; Schlitzohr: a shared win).

Pure; :func:`forfeit_events` raises ValueError for a seat that is not to act.
"""

from __future__ import annotations

from typing import Any

from engine.game import Game
from engine.model import Event

FORFEIT_REASON = "forfeit"
GAME_ENDED = "GameEnded"


def forfeit_events(game: Game[Any], state: Any, seat: int) -> list[Event]:
    """The events that end the game when ``seat`` forfeits (see the module docstring)."""
    if seat not in game.to_act(state):
        raise ValueError(f"seat {seat} is not to act: it cannot time out")
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
