"""Stream tickets through the real app (responses checked against ``openapi.yaml``): the
documented reconnect loop -- a new ticket per connection, ``after=<last id>`` -- gets
every event once, redacted exactly as the seat's token stream; an admin ticket sees
what the admin token sees. (Attacks on tickets: ``tests/security/test_stream_tickets.py``.)
"""

from __future__ import annotations

import itertools

from flask import Flask
from support.http_games import FlaskApi, create_game, play_randomly, seat_everyone
from support.http_setup import ADMIN_TOKEN
from support.sse import SseEvent, events

pytest_plugins = ("support.http_app",)  # fixtures: http_services, http_app, api


def ticket(api: FlaskApi, game_id: str, token: str) -> str:
    reply = api.call("POST", f"/v1/games/{game_id}/stream-tickets", token=token)
    assert reply.status == 201 and reply.headers["Cache-Control"] == "no-store", reply.body
    return str(reply.body["ticket"])


def take(app: Flask, path: str, count: int | None = None, **headers: str) -> list[SseEvent]:
    response = app.test_client().get(path, headers=headers, buffered=False)
    assert response.status_code == 200, response.get_data()
    try:
        return list(itertools.islice(events(response.response), count))  # type: ignore[arg-type]
    finally:
        response.close()


def test_reconnecting_with_a_new_ticket_and_after_misses_nothing(
    api: FlaskApi, http_app: Flask
) -> None:
    game_id = create_game(api, "abluxxen", 2)
    tokens = seat_everyone(api, game_id, 2)
    play_randomly(api, game_id, tokens, b"tickets")
    stream = f"/v1/games/{game_id}/events/stream"
    for token in tokens:
        received: list[SseEvent] = []
        while True:
            after = received[-1].id if received else 0
            batch = take(
                http_app, f"{stream}?ticket={ticket(api, game_id, token)}&after={after}", count=41
            )
            if not batch:
                break
            received += batch
        with_token = take(http_app, stream, Authorization=f"Bearer {token}")
        assert (
            [e.id for e in received]
            == [e.id for e in with_token]
            == list(range(1, len(with_token) + 1))
        )
        assert [e.data for e in received] == [e.data for e in with_token]


def test_an_admin_ticket_streams_what_the_admin_token_sees(api: FlaskApi, http_app: Flask) -> None:
    game_id = create_game(api, "abluxxen", 3)
    seat_everyone(api, game_id, 3)
    issued = api.call("POST", f"/v1/games/{game_id}/stream-tickets", token=ADMIN_TOKEN)
    assert issued.status == 201 and issued.body["seat"] is None and issued.body["expires_in"] == 30
    head = api.call("GET", f"/v1/games/{game_id}/events").body["head"]
    stream = f"/v1/games/{game_id}/events/stream"
    admin = take(http_app, f"{stream}?ticket={issued.body['ticket']}", count=head)
    assert [e.data for e in admin] == [
        e.data for e in take(http_app, stream, count=head, Authorization=f"Bearer {ADMIN_TOKEN}")
    ]
    assert sum(e.type == "HandDealt" and e.data["private"] is not None for e in admin) == 3


def test_refusals_are_problems_the_contract_lists(api: FlaskApi) -> None:
    game_id = create_game(api, "abluxxen", 2)
    tokens = seat_everyone(api, game_id, 2)
    assert api.call("POST", f"/v1/games/{game_id}/stream-tickets").code == "unauthenticated"
    assert (
        api.call("POST", "/v1/games/nope/stream-tickets", token=ADMIN_TOKEN).code
        == "game_not_found"
    )
    assert (
        api.call("POST", f"/v1/games/{game_id}/stream-tickets?x=1", token=tokens[0]).code
        == "invalid_parameter"
    )
    spent = api.call("GET", f"/v1/games/{game_id}/events/stream?ticket={'B' * 43}")
    assert (spent.status, spent.code) == (401, "invalid_ticket")
    too_long = api.call("GET", f"/v1/games/{game_id}/events/stream?ticket={'B' * 129}")
    assert (too_long.status, too_long.code) == (400, "invalid_parameter")
