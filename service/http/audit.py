"""Audit over HTTP: a game's history as JSON Lines, and its verification.

- ``GET /v1/games/{id}/export``: one stored envelope per line (``events.audit.export``).
  Complete -- the stored text byte for byte, verifiable and importable -- once the
  game has ended, or for the admin token; before that redacted for the caller (a
  seat, or a spectator), each line marked ``"redacted"``. The header
  ``Tabletop-Export: complete | redacted`` says which.
- ``GET /v1/games/{id}/verification``: the full audit of a finished game
  (``events.audit.verify``: hash chain, seed commitment, every random outcome and
  event re-computed, final scores). A report that found a discrepancy is still a
  200: the verification ran; ``ok`` is its answer. A running game cannot be
  verified yet (its seed is secret): 409 ``game_not_finished``. The report is
  computed once and kept (``service.app.verification``); computing it is charged to
  the client's verification limit (429 ``verify_rate_limited``), serving the kept
  one is not.

Exports are replays (the whole history read and encoded): charged to the client's
replay limit, 429 ``replay_rate_limited``.
"""

from __future__ import annotations

from flask import Blueprint, Response

from events.audit.export import export_history
from service.app.errors import GameNotFound, NotFinished
from service.app.verification import verification_report
from service.http import auth, body, context, games, ratelimit
from service.http.responses import json_text_response

bp = Blueprint("audit", __name__, url_prefix="/v1/games")
bp.url_value_preprocessor(games.check_game_id)

JSON_LINES = "application/jsonl"


@bp.get("/<game_id>/export")
def export(game_id: str) -> Response:
    body.no_query()
    viewer = auth.history_viewer(game_id)
    store = context.services().store
    if store.head(game_id).version == 0:
        raise GameNotFound("no game has this id")
    ratelimit.charge(ratelimit.REPLAY)
    exported = export_history(store, game_id, viewer)
    headers = {
        "Content-Disposition": f'attachment; filename="{game_id}.jsonl"',
        "Tabletop-Export": "complete" if exported.complete else "redacted",
        "Vary": "Authorization",
        "Cache-Control": "private, no-cache",
    }
    return Response(exported.text(), mimetype=JSON_LINES, headers=headers)


@bp.get("/<game_id>/verification")
def verification(game_id: str) -> Response:
    body.no_query()
    store = context.services().store
    head = store.head(game_id)
    if head.version == 0:
        raise GameNotFound("no game has this id")
    if not head.finished:
        raise NotFinished("a game can be verified once it has ended and its seed is revealed")
    text = verification_report(
        context.services().redis, store, game_id, lambda: ratelimit.charge(ratelimit.VERIFY)
    )
    return json_text_response(text)
