"""Helpers of the security suite's own modules: raw requests, games played to the end.

``finished_game`` plays a short Schlitzohr game through the API with random legal
commands (two seats, the smallest turn cap), so a test has a finished game to verify.
"""

from __future__ import annotations

from typing import Any

from support.http_games import HttpApi, create_game, play_randomly, seat_everyone
from support.live_server import LiveServer

SHORT_GAME: dict[str, Any] = {"game": "schlitzohr", "players": 2, "options": {"turn_cap": 10}}


def finished_game(api: HttpApi, seed: bytes = b"security") -> str:
    """The id of a game played to its end (seed revealed) through ``api``."""
    game_id = create_game(api, "schlitzohr", 2, options={"turn_cap": 10})
    tokens = seat_everyone(api, game_id, 2)
    play_randomly(api, game_id, tokens, seed)
    return game_id


def key_prefix_of(server: LiveServer) -> str:
    """The Redis key prefix the live server writes under."""
    return server.env["TABLETOP_KEY_PREFIX"]


def problem(reply: Any) -> dict[str, Any]:
    """The problem+json body of a ``requests`` response (asserting its media type)."""
    assert reply.headers.get("Content-Type", "").startswith("application/problem+json"), (
        reply.status_code,
        reply.headers,
        reply.text[:300],
    )
    body: dict[str, Any] = reply.json()
    assert body["status"] == reply.status_code and body["code"], body
    return body
