"""An authenticated read (view, ``/legal``) checks the token and answers from one table
load: one read of the store, not one for the token and another for the answer."""

from __future__ import annotations

from typing import Any

import pytest
from support.http_games import FlaskApi, create_game, seat_everyone

from service.bootstrap import Services

pytest_plugins = ("support.http_app",)  # fixtures: http_services, http_app, api


@pytest.mark.parametrize("path", ["", "/legal"])
def test_a_seat_read_loads_the_table_once(
    api: FlaskApi, http_services: Services, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    game_id = create_game(api, "schlitzohr", 2)
    tokens = seat_everyone(api, game_id, 2)
    store = http_services.store
    reads: list[Any] = []
    original = store.read_range

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(store, "read_range", counted)
    reply = api.call("GET", f"/v1/games/{game_id}{path}", token=tokens[0])
    assert reply.status == 200 and reply.body["you"] == 0
    assert len(reads) == 1
    # A spectator (no token) needs no token check: one load as well.
    reads.clear()
    assert api.call("GET", f"/v1/games/{game_id}{path}").status == 200
    assert len(reads) == 1
