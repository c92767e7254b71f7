"""Shared pieces of the per-game endpoints."""

from __future__ import annotations

from typing import Any

from events.redis_adapter.keys import GAME_ID
from service.app.errors import GameNotFound


def check_game_id(endpoint: str | None, values: dict[str, Any] | None) -> None:
    """A URL value preprocessor: a ``game_id`` that cannot be an id is a game that does
    not exist (404 ``game_not_found``), checked before anything touches Redis."""
    game_id = (values or {}).get("game_id")
    if game_id is not None and not GAME_ID.fullmatch(game_id):
        raise GameNotFound("no game has this id")
