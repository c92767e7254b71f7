"""``GET /legal?form=compact`` over the real app: expanding it gives exactly ``form=full``.

Real games are played through the API (random legal commands, every seat); at each
position both forms are fetched for every seat and the compact one is expanded by the
test's own reading of the contract (not the engine's ``expand``). Responses are checked
against ``openapi.yaml`` by the contract client.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest
from support.http_games import FlaskApi, create_game, seat_everyone

from engine.rng import SeededRandom

pytest_plugins = ("support.http_app",)  # fixtures: http_services, http_app, api


def expand(compact: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for item in compact:
        spec = item.get("choose")
        if spec is None:
            out.append(item)
            continue
        assert spec["order"] == "ascending" and spec["from"] == sorted(set(spec["from"]))
        base = {k: v for k, v in item.items() if k != "choose"}
        out.extend(
            {**base, spec["field"]: list(c)} for c in combinations(spec["from"], spec["count"])
        )
    return out


@pytest.mark.parametrize(
    ("game", "players", "options"), [("schlitzohr", 2, {"turn_cap": 40}), ("abluxxen", 2, {})]
)
def test_expanding_compact_legal_gives_exactly_the_full_list(
    api: FlaskApi, game: str, players: int, options: dict[str, Any]
) -> None:
    game_id = create_game(api, game, players, options=options)
    tokens = seat_everyone(api, game_id, players)
    pick = SeededRandom(game.encode(), "compact-legal")
    choices = 0
    legal_url = f"/v1/games/{game_id}/legal"
    for step in range(400):
        view = api.call("GET", f"/v1/games/{game_id}").body
        if view["status"] == "finished":
            break
        for seat, token in enumerate(tokens):
            full = api.call("GET", legal_url, token=token)
            compact = api.call("GET", legal_url + "?form=compact", token=token)
            assert full.status == compact.status == 200
            assert full.headers["ETag"] == compact.headers["ETag"]
            assert {k: v for k, v in compact.body.items() if k != "commands"} == {
                k: v for k, v in full.body.items() if k != "commands"
            }
            assert expand(compact.body["commands"]) == full.body["commands"], (step, seat)
            assert api.call("GET", legal_url + "?form=full", token=token).body == full.body
            choices += sum("choose" in c for c in compact.body["commands"])
        seat = int(min(view["to_act"], key=int))
        legal = api.call("GET", legal_url, token=tokens[seat]).body["commands"]
        command = legal[pick.randbelow(len(legal), f"step{step}")]
        reply = api.call(
            "POST",
            f"/v1/games/{game_id}/commands",
            token=tokens[seat],
            body={"command": command},
            headers={"If-Match": f'"{view["version"]}"'},
        )
        assert reply.status == 200, reply.body
    if game == "schlitzohr":
        assert choices > 0, "the game reached an inspect"
    spectator = api.call("GET", legal_url + "?form=compact")
    assert spectator.status == 200 and spectator.body["commands"] == []


@pytest.mark.parametrize(
    "query", ["?form=short", "?form=", "?form=full&form=compact", "?compact=1"]
)
def test_an_unknown_form_is_a_400(api: FlaskApi, query: str) -> None:
    game_id = create_game(api, "schlitzohr", 2)
    reply = api.call("GET", f"/v1/games/{game_id}/legal{query}")
    assert reply.status == 400 and reply.code == "invalid_parameter"
