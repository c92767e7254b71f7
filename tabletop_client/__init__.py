"""tabletop_client: a typed Python client for the tabletop game server's REST API.

    from tabletop_client import TabletopClient

    client = TabletopClient("http://localhost:8000")
    game = client.create_game("schlitzohr", 2, bots={1: "greedy"})
    seat = client.join(game["game_id"], "ada")
    legal = seat.legal()
    outcome = seat.command(legal["commands"][0])

It depends on ``requests`` only and imports nothing of the server. See docs/client.md.
"""

from tabletop_client.client import FINAL_EVENTS, TabletopClient
from tabletop_client.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    NotFound,
    RateLimited,
    RuleRefused,
    StaleVersion,
    TabletopError,
    Unauthorized,
    Unavailable,
)
from tabletop_client.seat import Seat

__all__ = [
    "FINAL_EVENTS",
    "BadRequest",
    "Conflict",
    "Forbidden",
    "NotFound",
    "RateLimited",
    "RuleRefused",
    "Seat",
    "StaleVersion",
    "TabletopClient",
    "TabletopError",
    "Unauthorized",
    "Unavailable",
]
