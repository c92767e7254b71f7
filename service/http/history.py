"""History: a game's events as the caller may see them -- pages, and a live SSE stream.

Viewers: a seat token sees its own private facts, no token is a spectator, the
admin token sees everything (``auth.history_viewer``); the stream also takes a stream
ticket (``?ticket=``, :mod:`service.http.tickets`) in place of the token, for browsers.
After the game has ended the whole history is public. Pages are ranges of versions: ``?after=v&limit=n`` gives
versions ``v+1 .. v+n``; ``next_after`` (and a ``Link: rel="next"`` header) names
the next page while there is one.
"""

from __future__ import annotations

import re

from flask import Blueprint, Response, request

from service.http import auth, body, context, games, schemas, sse, waits
from service.http.live import Subscription
from service.http.problems import Problem
from service.http.responses import json_response
from service.http.stream_access import stream_access

_EVENT_ID = re.compile(r"[0-9]{1,18}")

bp = Blueprint("history", __name__, url_prefix="/v1/games")
bp.url_value_preprocessor(games.check_game_id)


@bp.get("/<game_id>/events")
def events(game_id: str) -> Response:
    query = body.query(schemas.PAGE)
    body.check_page_limit(query["limit"])
    viewer = auth.history_viewer(game_id)
    page = context.queries().history(game_id, viewer, query["after"], query["limit"])
    headers = {"Vary": "Authorization", "Cache-Control": "private, no-cache"}
    if page["next_after"] is not None:
        headers["Link"] = (
            f'</v1/games/{game_id}/events?after={page["next_after"]}&limit={query["limit"]}>; rel="next"'
        )
    return json_response(page, headers=headers)


@bp.get("/<game_id>/events/stream")
def stream(game_id: str) -> Response:
    query = body.query(schemas.STREAM_QUERY)
    after = resume_point(query.get("after"))
    access = stream_access(game_id, query.get("ticket"))  # 404 for an unknown game, 401 ...
    access.check_start(after)  # 422 beyond the head: see service.http.stream_access
    settings = context.settings()
    hold = waits.current()
    client = waits.client_key(game_id, access.viewer if access.watch is None else access.watch.seat)
    hold.slots.acquire(client)  # 429 / 503 over a cap, before the stream starts
    following: Subscription | None = None

    def release() -> None:
        try:
            if following is not None:
                following.close()
        finally:
            hold.slots.release(client)

    try:
        # Followed before the stream's first read (service.http.live's guarantees).
        following = hold.live.subscription(game_id) if hold.live is not None else None
        text = sse.event_stream(
            context.services().store,
            game_id,
            access.viewer,
            after,
            settings.sse_max_s,
            settings.sse_heartbeat_s,
            wait=following.wait_entries if following is not None else None,
            watch=access.watch,
        )
        headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
        stream_body = waits.Held(text, release)
    except BaseException:
        release()
        raise
    return Response(stream_body, mimetype="text/event-stream", headers=headers)


def resume_point(after: int | None, what: str = "an event id (a version)") -> int:
    """Where a stream starts: ``Last-Event-ID`` (sent by a reconnecting EventSource, so it
    wins over the ``after`` of the URL it reconnects to), else ``after``, else 0. Shared
    by every stream; ``what`` names its ids in the 400 ``invalid_header``."""
    header = request.headers.get("Last-Event-ID")
    if header is None:
        return after or 0
    if not _EVENT_ID.fullmatch(header.strip()):
        raise Problem(400, "invalid_header", f"Last-Event-ID must be {what} sent by this stream")
    return int(header.strip())
