"""Over real HTTP against a live gunicorn server: whole games by scripted clients, SSE
reconnects, a race between two workers, metrics across worker processes."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import requests
from support.contract import ContractSession
from support.http_games import HttpApi, create_game, play_randomly, seat_everyone
from support.live_server import LiveServer
from support.sse import events

from engine.registry import game_names, get_game


@pytest.fixture
def seat_clients(live_server: LiveServer) -> Iterator[list[HttpApi]]:
    """Five independent clients, one per seat."""
    sessions = [ContractSession() for _ in range(5)]
    yield [HttpApi(session, live_server.url) for session in sessions]
    for session in sessions:
        session.close()


@pytest.mark.parametrize("game", game_names())
def test_a_full_game_by_scripted_clients_one_token_per_seat(
    http_api: HttpApi, seat_clients: list[HttpApi], game: str
) -> None:
    players = get_game(game).max_players if game == "schlitzohr" else 3
    game_id = create_game(
        http_api, game, players, options={"turn_cap": 60} if game == "schlitzohr" else {}
    )
    tokens = [
        client.call("POST", f"/v1/games/{game_id}/seats", body={"name": f"client{i}"}).body["token"]
        for i, client in enumerate(seat_clients[:players])
    ]
    final = play_randomly(seat_clients[:players], game_id, tokens, f"e2e-{game}".encode())
    assert final["status"] == "finished" and final["seed"] is not None
    report = http_api.call("GET", f"/v1/games/{game_id}/verification").body
    assert report["ok"] and report["commands"] > 0


def test_an_sse_client_that_keeps_dropping_misses_no_version(
    http_api: HttpApi, live_server: LiveServer
) -> None:
    game_id = create_game(http_api, "abluxxen", 2)
    tokens = seat_everyone(http_api, game_id, 2)
    player = threading.Thread(target=play_randomly, args=(http_api, game_id, tokens, b"e2e-sse"))
    player.start()
    received: list[int] = []
    try:
        for _ in range(500):  # reconnects; the stream also ends by itself every sse_max_s
            headers = {"Last-Event-ID": str(received[-1])} if received else {}
            with requests.get(
                f"{live_server.url}/v1/games/{game_id}/events/stream",
                headers=headers,
                stream=True,
                timeout=10,
            ) as response:
                assert response.status_code == 200
                # Hang up after a few events, mid-stream, as a flaky network would.
                for count, event in enumerate(
                    events(response.iter_content(chunk_size=None)), start=1
                ):
                    received.append(event.id)
                    if count == 7:
                        break
            if received and not player.is_alive() and _head(http_api, game_id) == received[-1]:
                break
    finally:
        player.join()
    assert received == list(range(1, _head(http_api, game_id) + 1))


def _head(api: HttpApi, game_id: str) -> int:
    return int(api.call("GET", f"/v1/games/{game_id}").body["version"])


def test_two_workers_racing_on_one_version_write_once(
    http_api: HttpApi, seat_clients: list[HttpApi]
) -> None:
    game_id = create_game(http_api, "schlitzohr", 2)
    tokens = seat_everyone(http_api, game_id, 2)
    version = _head(http_api, game_id)
    barrier = threading.Barrier(4)
    statuses: list[int] = []

    def send(client: HttpApi, command: str) -> None:
        barrier.wait()
        reply = client.call(
            "POST",
            f"/v1/games/{game_id}/commands",
            token=tokens[0],
            body={"command": {"kind": command}, "expected_version": version},
        )
        statuses.append(reply.status)

    threads = [
        threading.Thread(target=send, args=(seat_clients[i], ("roll", "joker")[i % 2]))
        for i in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200, 409, 409, 409]
    assert _head(http_api, game_id) > version


def test_metrics_add_up_over_worker_processes(http_api: HttpApi) -> None:
    before = _commands_counted(http_api)
    game_id = create_game(http_api, "schlitzohr", 2)
    tokens = seat_everyone(http_api, game_id, 2)
    for _ in range(6):  # fresh connections: requests land on both workers
        with ContractSession() as session:
            view = HttpApi(session, http_api.base_url).call("GET", f"/v1/games/{game_id}").body
            seat = int(min(view["to_act"], key=int))
            legal = http_api.call("GET", f"/v1/games/{game_id}/legal", token=tokens[seat]).body[
                "commands"
            ]
            http_api.call(
                "POST",
                f"/v1/games/{game_id}/commands",
                token=tokens[seat],
                body={"command": legal[0], "expected_version": view["version"]},
            )
    assert _commands_counted(http_api) - before == 6


_ADMIN_TOKEN = "e2e-admin-token-0123456789abcdef"
"""As in tests/e2e/conftest.py (conftest modules are not importable by name here)."""


def _commands_counted(api: HttpApi) -> float:
    text = api.call("GET", "/metrics", token=_ADMIN_TOKEN).body
    lines = [
        line
        for line in text.splitlines()
        if line.startswith('tabletop_commands_total{game="schlitzohr"}')
    ]
    return sum(float(line.rsplit(" ", 1)[1]) for line in lines)
