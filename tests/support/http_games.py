"""Driving the REST API from tests, the same way over the Flask test client or real HTTP.

:class:`FlaskApi` and :class:`HttpApi` both answer :meth:`call` with a :class:`Reply`,
so the scripted clients below (create a game, seat everyone, play random legal
commands with one token per seat) run unchanged in integration and e2e tests.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import requests
from flask.testing import FlaskClient

from engine.rng import SeededRandom


@dataclass(frozen=True)
class Reply:
    """An HTTP answer: status, headers, and the body (parsed if JSON, else text)."""

    status: int
    headers: Mapping[str, str]
    body: Any

    @property
    def code(self) -> str | None:
        """The problem code of an error answer."""
        return self.body.get("code") if isinstance(self.body, dict) else None


class Api(Protocol):
    def call(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply: ...


def _headers(token: str | None, headers: Mapping[str, str] | None) -> dict[str, str]:
    out = dict(headers or {})
    if token is not None:
        out["Authorization"] = f"Bearer {token}"
    return out


def _parse(content_type: str, data: bytes) -> Any:
    if "json" in content_type and "jsonl" not in content_type and data:
        return json.loads(data)
    return data.decode()


class FlaskApi:
    """The API through a Flask test client."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client

    def call(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        kwargs: dict[str, Any] = {"headers": _headers(token, headers)}
        if body is not None:
            kwargs["json"] = body
        response = self.client.open(path, method=method, **kwargs)
        return Reply(
            response.status_code,
            dict(response.headers),
            _parse(response.content_type or "", response.data),
        )


class HttpApi:
    """The API over real HTTP."""

    def __init__(self, session: requests.Session, base_url: str) -> None:
        self.session = session
        self.base_url = base_url.rstrip("/")

    def call(
        self,
        method: str,
        path: str,
        *,
        token: str | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        response = self.session.request(
            method, self.base_url + path, json=body, headers=_headers(token, headers), timeout=30
        )
        return Reply(
            response.status_code,
            dict(response.headers),
            _parse(response.headers.get("Content-Type", ""), response.content),
        )


def create_game(api: Api, game: str, players: int, **extra: Any) -> str:
    """A new game's id (asserting 201)."""
    reply = api.call("POST", "/v1/games", body={"game": game, "players": players, **extra})
    assert reply.status == 201, reply.body
    return str(reply.body["game_id"])


def seat_everyone(api: Api, game_id: str, players: int, invite: str | None = None) -> list[str]:
    """Take every seat (player0, player1, ...), bringing ``invite`` if given; returns
    the tokens by seat."""
    tokens = []
    extra = {} if invite is None else {"invite": invite}
    for i in range(players):
        reply = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": f"player{i}", **extra})
        assert reply.status == 201 and reply.body["seat"] == i, reply.body
        tokens.append(reply.body["token"])
    return tokens


def move(api: Api, game_id: str, tokens: list[str]) -> int:
    """One legal command (the first listed) by whoever must act; the new version."""
    view = api.call("GET", f"/v1/games/{game_id}").body
    seat = int(min(view["to_act"], key=int))
    legal = api.call("GET", f"/v1/games/{game_id}/legal", token=tokens[seat]).body["commands"]
    reply = api.call(
        "POST",
        f"/v1/games/{game_id}/commands",
        token=tokens[seat],
        body={"command": legal[0], "expected_version": view["version"]},
    )
    assert reply.status == 200, reply.body
    return int(reply.body["version"])


def all_events(api: Api, game_id: str, token: str | None = None) -> list[dict[str, Any]]:
    """Every event of a game as the caller may see it, page by page."""
    events: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        page = api.call(
            "GET", f"/v1/games/{game_id}/events?after={after}&limit=500", token=token
        ).body
        events += page["events"]
        after = page["next_after"]
    return events


Step = Callable[[int, dict[str, Any]], None]
"""Called after every accepted command with the seat and the outcome document."""


def play_randomly(
    api: Api | list[Api],
    game_id: str,
    tokens: list[str],
    seed: bytes,
    after: Step | None = None,
    max_steps: int = 5000,
) -> dict[str, Any]:
    """Play random legal commands until the game ends; the final view. ``api`` may be one
    client per seat (each seat's requests then go through its own client)."""
    clients = api if isinstance(api, list) else [api] * len(tokens)
    pick = SeededRandom(seed, "http-test-pick")
    view = clients[0].call("GET", f"/v1/games/{game_id}").body
    for step in range(max_steps):
        if view["status"] == "finished":
            return dict(clients[0].call("GET", f"/v1/games/{game_id}").body)
        seat = int(min(view["to_act"], key=int))
        client, token = clients[seat], tokens[seat]
        legal = client.call("GET", f"/v1/games/{game_id}/legal", token=token).body["commands"]
        command = legal[pick.randbelow(len(legal), f"step{step}")]
        reply = client.call(
            "POST",
            f"/v1/games/{game_id}/commands",
            token=token,
            body={"command": command},
            headers={"If-Match": f'"{view["version"]}"'},
        )
        assert reply.status == 200, reply.body
        assert reply.headers["ETag"] == f'"{reply.body["version"]}"'
        if after is not None:
            after(seat, reply.body)
        view = reply.body["view"]
    raise AssertionError(f"game {game_id} did not end within {max_steps} commands")
