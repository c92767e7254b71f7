"""Schemathesis hooks for ``test_e2e_schemathesis.py`` (loaded by the CLI through
``SCHEMATHESIS_HOOKS``).

- **Seat tokens.** A seat token is issued by ``takeSeat`` and acts in that one game,
  which the stateful phase reaches by the contract's links (create -> join -> legal ->
  command). ``after_call`` remembers each token issued; the auth provider sends the
  newest token of the request's game, so the linked calls act as that seat. Requests
  on other games go as generated (mostly spectators).
- **No refusal on grounds of shape.** Schemathesis' ``positive_data_acceptance``
  admits the documented state-dependent refusals (the run's config: 409, 422 a rule
  violation such as ``not_your_turn``, 428, 400 ``version_mismatch``); this check
  makes sure none of them is a refusal of the request's *form*: data the contract
  allows must never be answered with one of :data:`SHAPE_CODES`.
"""

from __future__ import annotations

import json
import re
import threading
from typing import Any

import schemathesis

SHAPE_CODES = frozenset(
    {
        "malformed_json",
        "invalid_encoding",
        "duplicate_key",
        "invalid_parameter",
        "invalid_header",
        "invalid_body",
        "unsupported_media_type",
        "invalid_option",
        "unknown_game",
        "unknown_command",
        "malformed_command",
        "bad_player_name",
        "unknown_ear",
        "unknown_field",
    }
)
"""Codes that refuse a request for its form (what the contract's schemas describe)."""

_GAME = re.compile(r"/v1/games/([A-Za-z0-9_-]{1,64})(?:/|$)")
_TOKENS: dict[str, str] = {}
_LOCK = threading.Lock()


def _game_of(case: Any) -> str | None:
    game = (case.path_parameters or {}).get("game_id")
    return game if isinstance(game, str) else None


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    if case.operation.method.upper() != "POST" or response.status_code != 201:
        return
    if not case.operation.path.endswith("/seats"):
        return
    try:
        body = json.loads(response.content)
    except ValueError:
        return
    with _LOCK:
        _TOKENS[body["game_id"]] = body["token"]


@schemathesis.auth(refresh_interval=None)
class SeatTokens:
    """The newest seat token of the request's game, if one was issued in this run."""

    def get(self, case: Any, ctx: Any) -> str | None:
        game = _game_of(case)
        with _LOCK:
            return _TOKENS.get(game) if game else None

    def set(self, case: Any, data: str | None, ctx: Any) -> None:
        # A stream ticket stands in for the token: both at once is 400 by design.
        if data is not None and "ticket" not in (case.query or {}):
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}


@schemathesis.check
def no_shape_refusal_of_valid_data(ctx: Any, response: Any, case: Any) -> bool | None:
    meta = getattr(case, "meta", None)
    mode = getattr(getattr(meta, "generation", None), "mode", None)
    if mode is None or not mode.is_positive or response.status_code not in (400, 404, 422):
        return None
    try:
        code = json.loads(response.content).get("code")
    except (ValueError, AttributeError):
        return None
    if code in SHAPE_CODES:
        raise AssertionError(f"data the contract allows was refused for its form: {code}")
    return None
