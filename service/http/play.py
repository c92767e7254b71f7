"""Play: the caller's view (ETag, long poll, past versions), the legal commands, commands.

- ``GET /v1/games/{id}``: a seat token gives that seat's view, none the spectator's.
  ``ETag: "<version>"``; ``If-None-Match`` -> 304. ``?wait=s&after=v`` blocks until
  the version exceeds ``v`` (default: the ``If-None-Match`` version, else the current
  one) or ``wait`` seconds pass (at most ``long_poll_max_s``), then answers as usual.
  ``?at=n`` is the view right after version ``n`` (a replay: a fold of the history,
  charged to the client's replay limit, 429 ``replay_rate_limited`` past it).
  ``?seat=n`` (a finished game only) is the view as seat ``n`` saw it -- replays as any seat.
- ``GET /v1/games/{id}/legal``: who must act, and the caller's legal commands;
  ``?form=compact`` describes each k-of-n pick once (``engine.choices``) instead of
  enumerating it (``form=full``, the default).
- ``POST /v1/games/{id}/commands``: ``{"command": {...}, "expected_version": n}``
  (or ``If-Match: "n"``) with an optional ``Idempotency-Key``; answers the outcome
  (the new view and the events as the caller may see them) with the new ETag.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from typing import Any

from flask import Blueprint, Response
from flask import request as http_request

from engine.errors import RuleViolation
from engine.table import Table
from service.app.documents import encode, encode_enumerated
from service.app.errors import NotFinished
from service.bootstrap import Services
from service.http import auth, body, context, games, metrics, ratelimit, schemas, versions, waits
from service.http.problems import Problem
from service.http.responses import Answer, json_answer, not_modified_answer, to_response

bp = Blueprint("play", __name__, url_prefix="/v1/games")
bp.url_value_preprocessor(games.check_game_id)


@bp.get("/<game_id>")
def view(game_id: str) -> Response:
    if not http_request.args:  # the hot path (a client reading its view), as direct serves it
        return to_response(view_answer(http_request.environ, game_id, context.services()))
    query = body.query(schemas.VIEW_QUERY)
    seat, table = auth.caller_seat_and_table(game_id)
    if "seat" in query:
        seat = _finished_seat(game_id, query["seat"], table)
    if "at" in query:
        # A past version never changes: nothing to wait for, so ``wait``/``after`` next to
        # ``at`` are ignored (the contract cannot state "not both" for query parameters).
        ratelimit.charge(ratelimit.REPLAY)  # a fold of the history up to ``at``
        document = context.queries().view(game_id, seat, at=query["at"])
    else:
        document = context.queries().view(game_id, seat, table=table)
        wait = min(query.get("wait", 0.0), context.settings().long_poll_max_s)
        if query.get("after", 0) > document["version"]:
            _check_after(game_id, query["after"])
        after = query.get("after", versions.if_none_match_version())
        after = document["version"] if after is None else after
        if wait > 0 and document["version"] <= after:
            _long_poll(game_id, seat, after, wait)
            # The caller is checked again: what ended the wait may be the very event that
            # took this credential's seat away (left, its token reissued).
            seat, table = auth.caller_seat_and_table(game_id)
            if "seat" in query:
                seat = _finished_seat(game_id, query["seat"], table)
            document = context.queries().view(game_id, seat, table=table)
    return to_response(_conditional(http_request.environ, document))


@bp.get("/<game_id>/legal")
def legal(game_id: str) -> Response:
    # No query is the hot path (bots, scripts): the schema only runs when one is given.
    compact = bool(http_request.args) and body.query(schemas.LEGAL_QUERY)["form"] == schemas.COMPACT
    return to_response(legal_answer(http_request.environ, game_id, context.services(), compact))


@bp.post("/<game_id>/commands")
def submit(game_id: str) -> Response:
    body.no_query()
    return to_response(command_answer(http_request.environ, game_id, context.services()))


# -- the three answers a client asks for all game long, for the routes above and for
# -- ``service.http.direct`` (which serves them without Flask's request machinery).


def view_answer(environ: MutableMapping[str, Any], game_id: str, services: Services) -> Answer:
    """The caller's current view (a request without a query): ETag, or 304."""
    seat, table = auth.caller_seat_and_table_in(environ, game_id, services)
    document = services.app.queries.view(game_id, seat, table=table)
    return _conditional(environ, document)


def legal_answer(
    environ: MutableMapping[str, Any], game_id: str, services: Services, compact: bool
) -> Answer:
    """The caller's legal commands, ``compact`` or enumerated: ETag, or 304."""
    seat, table = auth.caller_seat_and_table_in(environ, game_id, services)
    # Both forms start from the compact list; the enumerated one is expanded as it is
    # written (documents.encode_enumerated: a k-of-n pick stands for thousands of commands).
    document = services.app.queries.legal(game_id, seat, compact=True, table=table)
    return _conditional(environ, document, encode if compact else encode_enumerated)


def command_answer(environ: MutableMapping[str, Any], game_id: str, services: Services) -> Answer:
    """Decide and append the body's command (a request without a query): its outcome."""
    token = auth.required_token_in(environ, services.settings)
    request = body.json_body_in(environ, schemas.SUBMIT, services.settings.max_body_bytes)
    expected = versions.expected_version(environ, request["expected_version"])
    key = versions.idempotency_key(environ)
    outcome = services.app.submit_outcome(game_id, token, request["command"], expected, key)
    document = outcome.document
    metrics.count_command(document["view"]["game"])
    # The outcome's one encoding (sorted keys: a retry's answer, rebuilt from the stored
    # events, is then the very same bytes; see service.app.retries).
    return json_answer(outcome.text, versions.version_headers(document["version"]))


def _finished_seat(game_id: str, seat: int, table: Table | None) -> int:
    """``?seat=n``: the view as seat ``n`` sees it, whoever asks -- only once the game has
    finished, when its whole history is public (409 ``game_not_finished`` before: a
    running game's hidden facts are its seats' own); 400 for a seat the game lacks."""
    current = context.queries().view(game_id, None, table=table)  # the table if loaded already
    if current["status"] != "finished":
        raise NotFinished("a seat's view is shown to others only once the game has finished")
    if seat >= len(current["seats"]):
        raise Problem(
            400, "invalid_parameter", f"no seat {seat} in this game", errors={"seat": ["no such seat"]}
        )
    return seat


def _check_after(game_id: str, after: int) -> None:
    """422 ``version_out_of_range`` when ``after`` is beyond the game's head, as for a
    stream resuming there: no event has that version, so a wait for one would only ever
    time out. The head is read from the store, not this process's table (which may lag a
    version the caller saw elsewhere); a rare path, one round trip."""
    head = context.services().store.head(game_id).version
    if after > head:
        raise RuleViolation(
            "version_out_of_range",
            f"cannot wait for a version after {after}: the game's last is {head}",
            {"head": head},
        )


def _long_poll(game_id: str, seat: int | None, after: int, wait_s: float) -> None:
    """Wait up to ``wait_s`` for a version after ``after``: parked on the process's live
    hub (no Redis connection, no worker thread under gevent; one read of the head once
    the game is followed), counted against the
    caller's wait slots (429 ``too_many_streams`` / 503 ``server_busy`` over a cap)."""
    hold = waits.current()
    client = waits.client_key(game_id, seat)
    hold.slots.acquire(client)
    try:
        if hold.live is None:
            context.queries().wait_for(game_id, after, wait_s)
        else:
            store = context.services().store
            with hold.live.subscription(game_id) as following:
                following.wait_newer(after, wait_s, lambda: store.head(game_id).version)
    finally:
        hold.slots.release(client)


def _conditional(
    environ: Mapping[str, Any],
    document: dict[str, object],
    encoder: Callable[[dict[str, object]], str] = encode,
) -> Answer:
    """``document`` (as ``encoder`` writes it) with its version's ETag, or 304 if the
    client has that version (then nothing is encoded)."""
    version = int(document["version"])  # type: ignore[call-overload]
    headers = versions.version_headers(version)
    if versions.not_modified(environ, version):
        return not_modified_answer(headers)
    return json_answer(encoder(document), headers)
