"""``GET /v1/players/me/stream``: one SSE stream for all of a registered player's games.

The projector appends a notice to the account's own Redis stream whenever the
situation of one of its seats changes (``events.projections.notices``): a seat taken,
a game started, the seat to move (at every new version where it must act, with the
command kinds and the ``deadline``), waiting, a game ended (with the public result)
or expired, and a rematch of a game it played that offers it its seat again. This endpoint relays them; it never looks at a game.

Wire format per notice::

    id: <n>                  (1, 2, 3 ... per account)
    event: <kind>            seated | started | your_turn | waiting | ended | expired | left | rematch
    data: {"kind", "game_id", "game", "seat", "version", "status", "to_move",
           "kinds", "deadline", "result"}   (+ "rematch_of" in a rematch notice)

Same rules as the game streams (``service.http.sse``): resumable with
``Last-Event-ID`` (wins) or ``?after=n`` -- each notice after ``n`` exactly once, in
order; bounded by ``TABLETOP_SSE_MAX_S``; a heartbeat comment every
``TABLETOP_SSE_HEARTBEAT_S``; counted against the caller's wait slots (429
``too_many_streams`` / 503 ``server_busy``), the caller being the verified account.
An idle stream is parked on a per-process hub (one Redis connection for all, as for
games). The account's stream keeps about ``NOTICES_KEPT`` notices: a client resuming
from further back gets one ``reset`` event (``data: {"oldest": n}``) -- re-read
``/v1/players/me/games`` then -- and the stream goes on from the oldest kept notice.
Only a player key opens it (401 ``player_key_required``), or a player stream ticket
(``POST /v1/players/me/stream-tickets``, then ``?ticket=``: single-use, 30 s; for a
browser's ``EventSource``, which cannot send the key; 401 ``invalid_ticket`` for a spent,
unknown or expired one, or a game's).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Blueprint, Flask, Response, current_app

from events.accounts.keys import AccountKeys
from service.accounts.store import key_hash
from service.http import account_schemas, auth, body, context, history, ratelimit, tickets, waits
from service.http.responses import json_response
from service.http.stream_access import failing_closed

bp = Blueprint("player_stream", __name__)

BATCH = 100
RETRY_MS = 1000
HUB = "tabletop.player_hub"


def install(app: Flask, services: Any) -> None:
    """A hub over the accounts' notice streams (None on a cluster: block per stream)."""
    prefix = services.store.prefix
    app.extensions[HUB] = waits.hub_for(
        services.redis, lambda account_id: AccountKeys.of(prefix, account_id).notices, prefix
    )


@bp.post("/v1/players/me/stream-tickets")
def issue_ticket() -> Response:
    """A single-use, short-lived ticket that opens this account's stream with
    ``?ticket=`` (for a browser's ``EventSource``, which cannot send the player key):
    201 ``{"ticket", "seat": null, "expires_in"}``; charged to the ticket limit."""
    body.no_query()
    account = auth.required_account()
    ratelimit.charge(ratelimit.TICKET)
    store = tickets.tickets_store()
    token = auth.bearer_token()
    assert token is not None  # required_account found the player key in it
    document = {
        "ticket": store.issue_for_account(account.account_id, key_hash(token)),
        "seat": None,
        "expires_in": store.ttl_s,
    }
    return json_response(document, 201, {"Cache-Control": "no-store"})


@bp.get("/v1/players/me/stream")
def stream() -> Response:
    query = body.query(account_schemas.PLAYER_STREAM_QUERY)
    account_id, still_valid = _opened_by(query.get("ticket"))
    after = history.resume_point(query.get("after"), "a notice id")
    settings = context.settings()
    hold = waits.current()
    client = f"player:{account_id}"
    hold.slots.acquire(client)  # 429 / 503 over a cap, before the stream starts
    try:
        hub = current_app.extensions.get(HUB)
        keys = AccountKeys.of(context.services().store.prefix, account_id)
        text = notice_stream(
            context.services().redis,
            keys.notices,
            after,
            settings.sse_max_s,
            settings.sse_heartbeat_s,
            wait=None if hub is None else (lambda n, s: hub.wait(account_id, n, s)),
            still_valid=failing_closed(still_valid),
        )
        stream_body = waits.Held(text, lambda: hold.slots.release(client))
    except BaseException:
        hold.slots.release(client)
        raise
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(stream_body, mimetype="text/event-stream", headers=headers)


def _opened_by(ticket: str | None) -> tuple[str, Callable[[], bool]]:
    """The account a player stream is for -- its player key's, or the ticket's (consumed:
    401 if spent, unknown or its key was replaced since) -- and a check that the key
    which opened it (or got its ticket) is still the account's."""
    accounts = context.application().accounts
    assert accounts is not None  # the API is always built with accounts
    if ticket is None:
        account_id = auth.required_account().account_id
        key = str(auth.bearer_token())  # required_account found the player key in it
        return account_id, lambda: accounts.resolve(key) is not None
    holder = tickets.account_of_ticket(ticket)
    account_id, hashed = str(holder.account), str(holder.key_hash)
    return account_id, lambda: accounts.fits(account_id, hashed) is not None


def notice_stream(
    client: Any,
    key: str,
    after: int,
    max_s: float,
    heartbeat_s: float,
    clock: Callable[[], float] = time.monotonic,
    wait: Callable[[int, float], bool] | None = None,
    still_valid: Callable[[], bool] | None = None,
) -> Iterator[str]:
    """The SSE text of the notices in stream ``key`` after id ``after`` (see module
    docstring). ``wait(after, timeout_s)`` parks until the stream may hold a newer entry;
    None: block in ``XREAD`` instead. ``still_valid``: asked before each batch is sent --
    False (the player key that opened the stream, or got its ticket, was replaced) ends
    the stream without sending it."""
    deadline = clock() + max_s
    yield f"retry: {RETRY_MS}\n\n"
    read, first = True, True
    while (remaining := deadline - clock()) > 0:
        idle_s = min(heartbeat_s, remaining)
        if wait is None:
            reply = client.xread({key: f"{after}-0"}, count=BATCH, block=max(1, int(idle_s * 1000)))
            batch = reply[0][1] if reply else []
        else:
            batch = client.xrange(key, min=f"({after}-0", max="+", count=BATCH) if read else []
            if not batch:
                read = wait(after, idle_s)
                if read:
                    continue
        if not batch:
            yield ": heartbeat\n\n"
            continue
        read = True
        if still_valid is not None and not still_valid():
            return
        if first and int(_text(batch[0][0]).split("-")[0]) > after + 1:
            oldest = int(_text(batch[0][0]).split("-")[0])
            yield f'id: {oldest - 1}\nevent: reset\ndata: {{"oldest":{oldest}}}\n\n'  # trimmed: some are gone
        first = False
        for entry_id, fields in batch:
            n = int(_text(entry_id).split("-")[0])
            notice = _text(fields[b"n"] if b"n" in fields else fields["n"])
            kind = json.loads(notice)["kind"]
            yield f"id: {n}\nevent: {kind}\ndata: {notice}\n\n"
            after = n


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
