"""Player names in URL paths (``/v1/players/{name}``, ``/v1/ratings/{game}/players/{name}``)."""

from __future__ import annotations

from engine.errors import RuleViolation
from engine.table import player_name
from service.http.problems import Problem


def name_in_path(name: str) -> str:
    """``name`` as seats and accounts store it (NFC: a decomposed spelling finds the same
    player), or 404 ``player_not_found`` for a name no player can have -- empty, longer
    than ``MAX_NAME_LENGTH``, outer spaces, control or bidi characters -- checked before
    anything is read."""
    try:
        return player_name(name)
    except RuleViolation:
        raise Problem(404, "player_not_found", "no player can have this name") from None
