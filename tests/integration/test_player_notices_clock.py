"""With turn clocks, a your-turn notice says by when: the deadline the seat's view shows."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
import redis

from engine.registry import get_game
from events.accounts.keys import AccountKeys
from events.accounts.names import name_key
from events.model.clock import TIME_FORMAT
from events.projections import ReadModels, Updater
from events.redis_adapter.store import RedisEventStore
from service.accounts.store import AccountStore
from service.app.application import Application

pytestmark = pytest.mark.store


class SteppingClock:
    """The store's clock: three seconds later at every append."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> str:
        self.now += timedelta(seconds=3)
        return self.now.strftime(TIME_FORMAT)


def test_your_turn_notices_carry_the_views_deadline(redis_client: redis.Redis, key_prefix: str) -> None:
    store = RedisEventStore(redis_client, prefix=key_prefix, clock=SteppingClock())
    accounts = AccountStore(redis_client, key_prefix)
    app = Application(store, accounts=accounts)
    account = accounts.register("Tick").account
    clock = {"per_decision_s": 60, "reserve_s": 30, "policy": "forfeit"}
    game_id = app.create_game("schlitzohr", {}, [None, None], clock=clock)["game_id"]
    mine = app.join(game_id, None, None, account).token
    guest = app.join(game_id, "guest", None).token
    updater = Updater(store, ReadModels(redis_client, key_prefix))
    game = get_game("schlitzohr")
    checked = 0
    for _ in range(30):
        updater.update(game_id)
        table = app.tables.load(game_id)
        if table.status != "running":
            break
        keys = AccountKeys.of(key_prefix, name_key("Tick"))
        last = json.loads(redis_client.hget(keys.last, game_id))
        view = app.queries.view(game_id, 0)
        if last["to_move"] and last["version"] == view["version"]:
            assert last["deadline"] is not None and last["deadline"] == view["deadlines"]["0"]
            checked += 1
        seat = min(game.to_act(table.state))
        command = game.legal_commands(table.state, seat)[0]
        app.submit(game_id, mine if seat == 0 else guest, command, table.version)
    assert checked > 0
