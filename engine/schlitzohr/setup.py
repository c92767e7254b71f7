"""A new game: the shuffled ears on the start fields, as one ``GameSetUp`` event."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.errors import INVALID_PLAYER_COUNT, RuleViolation
from engine.model import Event
from engine.rng import RandomSource, shuffled
from engine.schlitzohr import events as ev
from engine.schlitzohr.board import LAYOUTS
from engine.schlitzohr.material import (
    COLOURS,
    EARS_PER_COLOUR,
    MAX_PLAYERS,
    MIN_PLAYERS,
    seat_colours,
)
from engine.schlitzohr.specs import JOKER_SIX_RETURNS, LAYOUT, TURN_CAP

SHUFFLE_PURPOSE = "setup/colours"


def setup(options: Mapping[str, Any], players: int, rng: RandomSource) -> list[Event]:
    """The opening event. ``options`` must come from ``validate_options``.

    Ear ``i`` stands on the layout's ``i``-th start field (public); the colours are
    shuffled with ``rng`` and travel in the private part, visible to nobody.
    Raises RuleViolation ``invalid_player_count`` outside 2..4 players.
    """
    if (
        isinstance(players, bool)
        or not isinstance(players, int)
        or not MIN_PLAYERS <= players <= MAX_PLAYERS
    ):
        raise RuleViolation(
            INVALID_PLAYER_COUNT,
            f"schlitzohr needs {MIN_PLAYERS} to {MAX_PLAYERS} players",
            {"minimum": MIN_PLAYERS, "maximum": MAX_PLAYERS},
        )
    board = LAYOUTS[options[LAYOUT]]
    colours = shuffled(
        rng, [name for name in COLOURS for _ in range(EARS_PER_COLOUR)], SHUFFLE_PURPOSE
    )
    kept = {name: options[name] for name in (LAYOUT, JOKER_SIX_RETURNS, TURN_CAP)}
    seats = [COLOURS[c] for c in seat_colours(players)]
    fields = [board.names[f] for f in board.starts]
    return [ev.game_set_up(players, kept, seats, fields, colours)]
