"""The Server-Sent Events stream: format, redaction per viewer, resume, heartbeats, bounds."""

from __future__ import annotations

import itertools
import threading
import time

import redis
from flask import Flask
from support.http_games import FlaskApi, all_events, create_game, play_randomly, seat_everyone
from support.http_setup import app_settings, make_app
from support.redis import TestRedis
from support.sse import SseEvent, events

from service.http.context import EXTENSION

pytest_plugins = ("support.http_app",)  # fixtures: http_services, http_app, api


def stream(
    app: Flask, path: str, token: str | None = None, **headers: str
) -> tuple[object, list[str]]:
    """Open a stream; returns the open response and the list its comments go to."""
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    response = app.test_client().get(path, headers=headers, buffered=False)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    return response, []


def take(
    app: Flask, path: str, count: int | None = None, token: str | None = None, **headers: str
) -> list[SseEvent]:
    """Up to ``count`` events of a stream (all of it if None), then hang up."""
    response, comments = stream(app, path, token, **headers)
    try:
        return list(itertools.islice(events(response.response, comments), count))  # type: ignore[attr-defined]
    finally:
        response.close()  # type: ignore[attr-defined]


def finished_game(api: FlaskApi, game: str = "schlitzohr") -> tuple[str, list[str]]:
    game_id = create_game(api, game, 2, options={"turn_cap": 10} if game == "schlitzohr" else {})
    tokens = seat_everyone(api, game_id, 2)
    play_randomly(api, game_id, tokens, b"sse")
    return game_id, tokens


def test_a_finished_game_streams_every_event_once_and_ends(api: FlaskApi, http_app: Flask) -> None:
    game_id, _ = finished_game(api)
    streamed = take(http_app, f"/v1/games/{game_id}/events/stream")
    page = api.call("GET", f"/v1/games/{game_id}/events?limit=500").body
    assert [e.id for e in streamed] == list(range(1, page["head"] + 1))
    assert [e.data for e in streamed] == page["events"]
    assert [e.type for e in streamed] == [e["type"] for e in page["events"]]
    caught_up = take(http_app, f"/v1/games/{game_id}/events/stream?after={page['head']}")
    assert caught_up == []  # a finished game's stream ends at once once everything was sent


def test_reconnecting_with_last_event_id_misses_nothing(api: FlaskApi, http_app: Flask) -> None:
    game_id, _ = finished_game(api, "abluxxen")
    received: list[int] = []
    last: str | None = None
    while True:
        headers = {} if last is None else {"Last-Event-ID": last}
        batch = take(http_app, f"/v1/games/{game_id}/events/stream?after=0", count=37, **headers)
        if not batch:
            break
        received += [e.id for e in batch]
        last = str(batch[-1].id)
    head = api.call("GET", f"/v1/games/{game_id}").body["version"]
    assert received == list(range(1, head + 1))


def test_each_viewer_gets_its_own_redaction(api: FlaskApi, http_app: Flask) -> None:
    game_id = create_game(api, "abluxxen", 2)
    tokens = seat_everyone(api, game_id, 2)
    head = api.call("GET", f"/v1/games/{game_id}").body["version"]
    for viewer, token in ((0, tokens[0]), (1, tokens[1]), (None, None)):
        dealt = [
            e
            for e in take(http_app, f"/v1/games/{game_id}/events/stream", count=head, token=token)
            if e.type == "HandDealt"
        ]
        assert [e.data["private"] is not None for e in dealt] == [viewer == 0, viewer == 1]


def test_live_events_arrive_and_idle_streams_beat_then_end(
    redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str
) -> None:
    app = make_app(
        app_settings(redis_target, key_prefix, sse_max_s=1.0, sse_heartbeat_s=0.2), redis_client
    )
    api = FlaskApi(app.test_client())
    game_id = create_game(api, "schlitzohr", 2)
    tokens = seat_everyone(api, game_id, 2)
    head = api.call("GET", f"/v1/games/{game_id}").body["version"]

    def roll_later() -> None:
        time.sleep(0.3)
        api.call(
            "POST",
            f"/v1/games/{game_id}/commands",
            token=tokens[0],
            body={"command": {"kind": "roll"}, "expected_version": head},
        )

    mover = threading.Thread(target=roll_later)
    response, comments = stream(app, f"/v1/games/{game_id}/events/stream?after={head}", tokens[1])
    start = time.monotonic()
    mover.start()
    received = list(events(response.response, comments))  # type: ignore[attr-defined]
    mover.join()
    assert [(e.id, e.type) for e in received] == [(head + 1, "DieRolled")]
    assert 0.9 < time.monotonic() - start < 2.5  # the stream is bounded by sse_max_s
    assert comments.count(": heartbeat") >= 2


def test_an_expired_games_stream_ends_with_its_expiry(
    redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str
) -> None:
    """Nothing follows ``GameExpired``: the stream ends there, as a finished game's ends
    with its seed (it used to beat on until ``sse_max_s``)."""
    from datetime import UTC, datetime, timedelta

    settings = app_settings(redis_target, key_prefix, sse_max_s=2.0, sse_heartbeat_s=0.1)
    app = make_app(settings, redis_client)
    api = FlaskApi(app.test_client())
    game_id = create_game(api, "abluxxen", 2)
    services = app.extensions[EXTENSION]
    assert services.app.expire(game_id, 60, datetime.now(UTC) + timedelta(hours=1))
    response, comments = stream(app, f"/v1/games/{game_id}/events/stream")
    received = list(events(response.response, comments))  # type: ignore[attr-defined]
    assert received[-1].type == "GameExpired"
    assert ": heartbeat" not in comments  # over at once, not waited out
    # A client that reconnects at the last version (it saw the expiry) is answered at
    # once too, with nothing: the head alone does not say the game is over.
    response, comments = stream(app, f"/v1/games/{game_id}/events/stream?after={received[-1].id}")
    assert list(events(response.response, comments)) == []  # type: ignore[attr-defined]
    assert ": heartbeat" not in comments


def test_last_event_id_wins_over_after(api: FlaskApi, http_app: Flask) -> None:
    game_id = create_game(api, "abluxxen", 2)
    seat_everyone(api, game_id, 2)
    first = take(
        http_app, f"/v1/games/{game_id}/events/stream?after=1", count=1, **{"Last-Event-ID": "4"}
    )
    assert first[0].id == 5


def test_live_streams_redact_like_the_history_read_at_the_same_moment(
    api: FlaskApi, http_app: Flask
) -> None:
    """Streams open on a running game get their events from the process's live hub (the
    appends' own messages, handed over): each viewer's copy of every event must equal what that viewer
    reads from the paged history at the same version -- private facts redacted while the
    game runs, everything in full from the batch that ends it."""
    game_id = create_game(api, "abluxxen", 2)
    tokens = seat_everyone(api, game_id, 2)
    head = api.call("GET", f"/v1/games/{game_id}").body["version"]
    viewers: dict[int | None, str | None] = {0: tokens[0], 1: tokens[1], None: None}
    received: dict[int | None, list[SseEvent]] = {viewer: [] for viewer in viewers}
    arrived: dict[int | None, dict[int, float]] = {viewer: {} for viewer in viewers}

    def follow(viewer: int | None) -> None:
        # A stream ends after ``sse_max_s`` (60 s): on a slow machine the game outlasts
        # it, and the viewer resumes from the last id it got, as any client does.
        after, deadline = head, time.monotonic() + 300
        while time.monotonic() < deadline:
            response, comments = stream(
                http_app, f"/v1/games/{game_id}/events/stream?after={after}", viewers[viewer]
            )
            got = []
            try:
                for event in events(response.response, comments):  # type: ignore[attr-defined]
                    arrived[viewer][event.id] = time.monotonic()
                    got.append(event)
            finally:
                response.close()  # type: ignore[attr-defined]
            received[viewer].extend(got)
            if got and got[-1].type == "SeedRevealed":  # the last event of every game
                return
            after = got[-1].id if got else after

    followers = [threading.Thread(target=follow, args=(viewer,)) for viewer in viewers]
    for follower in followers:
        follower.start()
    seen: dict[int | None, dict[int, dict[str, object]]] = {viewer: {} for viewer in viewers}
    read_up_to = [head]
    # The earliest the command that ended the game can have been sent: when the history
    # read before it was done (play_randomly sends the next command after that).
    last_read_at = [time.monotonic()]
    ended_after = [float("inf")]

    def read_history(_seat: int, outcome: dict[str, object]) -> None:
        # Read right after each command, before the next: the stream got this version's
        # events while the game was at this very version.
        view = outcome.get("view")
        if isinstance(view, dict) and view.get("status") == "finished" and ended_after[0] == float("inf"):
            ended_after[0] = last_read_at[0]
        for viewer, token in viewers.items():
            page = api.call("GET", f"/v1/games/{game_id}/events?after={read_up_to[0]}&limit=500", token=token)
            for event in page.body["events"]:
                seen[viewer][event["version"]] = event
        read_up_to[0] = int(outcome["version"])  # type: ignore[call-overload]
        last_read_at[0] = time.monotonic()

    play_randomly(api, game_id, tokens, b"hub-redaction", after=read_history)
    for follower in followers:
        follower.join(300)
    final = api.call("GET", f"/v1/games/{game_id}").body["version"]
    read_history(0, {"version": final})  # the reveal, appended after the last answer
    in_full = {viewer: _history(api, game_id, token, head) for viewer, token in viewers.items()}
    for viewer in viewers:
        assert [e.id for e in received[viewer]] == list(range(head + 1, final + 1))
        for event in received[viewer]:
            if event.data == seen[viewer][event.id]:
                continue
            # A stream that fell behind (or resumed after ``sse_max_s``) may deliver an
            # event only once the game has ended, when everything is public: then, and
            # only then, in full. Before the end it must be what the history showed.
            assert event.data == in_full[viewer][event.id], (viewer, event.id)
            assert arrived[viewer][event.id] >= ended_after[0], (viewer, event.id, "in full before the end")
    # The check has teeth: while the game ran, the two seats saw some event differently.
    pairs = zip(received[0], received[1], strict=True)
    assert any(mine.data != theirs.data for mine, theirs in pairs if mine.type != "SeedRevealed")


def _history(api: FlaskApi, game_id: str, token: str | None, after: int) -> dict[int, dict[str, object]]:
    """Every event after version ``after`` as ``token``'s viewer reads it now, by version."""
    return {e["version"]: e for e in all_events(api, game_id, token) if e["version"] > after}
