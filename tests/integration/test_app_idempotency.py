"""Idempotency through the application on real Redis: scoped keys, slim records, and a
retry's answer rebuilt byte for byte from the stored events (``service.app.retries``)."""

from __future__ import annotations

import json
import secrets

import pytest
import redis

from engine.registry import game_names, get_game
from engine.rng import SeededRandom
from events.redis_adapter.keys import GameKeys
from events.redis_adapter.store import RedisEventStore
from service.accounts.store import AccountStore
from service.app.application import Application
from service.app.errors import IdempotencyMismatch, StaleVersion, Unauthenticated


def new_app(client: redis.Redis, prefix: str) -> Application:
    return Application(RedisEventStore(client, prefix=prefix), snapshot_every=25)


@pytest.fixture
def app(redis_client: redis.Redis, key_prefix: str) -> Application:
    return new_app(redis_client, key_prefix)


def seat_everyone(app: Application, game: str, players: int) -> tuple[str, list[str]]:
    game_id = app.create_game(game, {}, [None] * players)["game_id"]
    return game_id, [app.join(game_id, f"player{i}").token for i in range(players)]


@pytest.mark.parametrize("game", game_names())
def test_a_retry_gets_the_very_bytes_of_the_first_answer(
    app: Application, redis_client: redis.Redis, key_prefix: str, game: str
) -> None:
    """Every command sent with a key, as the docs recommend; then retries -- from another
    process (no cache), naming the version acted on and the version the command made --
    of a sample of them, the game-ending command included."""
    game_id, tokens = seat_everyone(app, game, get_game(game).min_players)
    pick = SeededRandom(game.encode(), "test-pick")
    sent: list[tuple[int, dict, int, str, str]] = []
    for step in range(20_000):
        view = app.queries.view(game_id, None)
        if view["status"] == "finished":
            break
        seat = int(min(view["to_act"], key=int))
        legal = app.queries.legal(game_id, seat)["commands"]
        command = legal[pick.randbelow(len(legal), f"p{step}")]
        key = f"k{step}"
        outcome = app.submit_outcome(game_id, tokens[seat], command, view["version"], key)
        sent.append((seat, command, view["version"], key, outcome.text))
        if step % 7 == 0:
            # At once, naming the version the command made -- now the current one: the
            # decision fails (not your turn) or is taken anew (the script answers dup).
            again = app.submit_outcome(game_id, tokens[seat], command, outcome.document["version"], key)
            assert again.text == outcome.text
    else:
        raise AssertionError("the game did not end")
    assert json.loads(sent[-1][4])["view"]["status"] == "finished"
    records = redis_client.hgetall(GameKeys.of(key_prefix, game_id).idempotency)
    assert len(records) == len(sent)
    assert all(len(record) < 250 for record in records.values())  # no answer stored

    other = new_app(redis_client, key_prefix)  # another process: nothing cached
    chosen = sorted({*range(min(4, len(sent))), *range(0, len(sent), 40), len(sent) - 2, len(sent) - 1})
    for i in chosen:
        seat, command, version, key, text = sent[i]
        assert other.submit_outcome(game_id, tokens[seat], command, version, key).text == text
        made = json.loads(text)["version"]
        # Naming the version the first call produced: still the first answer, not a
        # rule error (not your turn, game over) nor a new decision.
        assert other.submit_outcome(game_id, tokens[seat], command, made, key).text == text
    seat, command, version, key, text = sent[-1]
    head = app.queries.view(game_id, None)["version"]  # SeedRevealed: after the ending command
    assert other.submit_outcome(game_id, tokens[seat], command, head, key).text == text  # not game_over
    history = app.queries.history(game_id, 0, 0, 1000)
    assert history["events"][-1]["type"] == "SeedRevealed"
    assert history["head"] == json.loads(sent[-1][4])["version"] + 1  # retries wrote nothing


def test_keys_are_scoped_to_the_seat(app: Application, redis_client: redis.Redis, key_prefix: str) -> None:
    game_id, tokens = seat_everyone(app, "schlitzohr", 2)
    view = app.queries.view(game_id, None)
    seat = int(min(view["to_act"], key=int))
    command = app.queries.legal(game_id, seat)["commands"][0]
    first = app.submit_outcome(game_id, tokens[seat], command, view["version"], "shared")
    fields = redis_client.hkeys(GameKeys.of(key_prefix, game_id).idempotency)
    assert fields == [f"seat:{seat}:shared".encode()]
    # The other seat's same key is another key: never the first seat's answer.
    with pytest.raises((StaleVersion, IdempotencyMismatch)) as refused:
        app.submit_outcome(game_id, tokens[1 - seat], command, view["version"], "shared")
    assert isinstance(refused.value, StaleVersion)
    assert first.document["version"] == app.queries.view(game_id, None)["version"]


def test_a_retry_after_the_records_expired_is_a_conflict(
    app: Application, redis_client: redis.Redis, key_prefix: str
) -> None:
    game_id, tokens = seat_everyone(app, "schlitzohr", 2)
    view = app.queries.view(game_id, None)
    seat = int(min(view["to_act"], key=int))
    command = app.queries.legal(game_id, seat)["commands"][0]
    app.submit_outcome(game_id, tokens[seat], command, view["version"], "k")
    redis_client.delete(GameKeys.of(key_prefix, game_id).idempotency)  # as its TTL would
    with pytest.raises(StaleVersion) as conflict:
        new_app(redis_client, key_prefix).submit_outcome(game_id, tokens[seat], command, view["version"], "k")
    assert conflict.value.current_version > view["version"]


def test_a_record_of_the_old_format_still_answers(
    app: Application, redis_client: redis.Redis, key_prefix: str
) -> None:
    """Records written before slim records hold the whole first answer: it is answered."""
    game_id, tokens = seat_everyone(app, "abluxxen", 2)
    view = app.queries.view(game_id, None)
    seat = int(min(view["to_act"], key=int))
    command = app.queries.legal(game_id, seat)["commands"][0]
    first = app.submit_outcome(game_id, tokens[seat], command, view["version"], "old")
    idem = GameKeys.of(key_prefix, game_id).idempotency
    field = f"seat:{seat}:old"
    record = json.loads(redis_client.hget(idem, field))
    stored = {**first.document, "marker": "from the old record"}
    redis_client.hset(idem, field, json.dumps({**record, "response": json.dumps(stored)}))
    again = new_app(redis_client, key_prefix).submit_outcome(game_id, tokens[seat], command, view["version"], "old")
    assert again.document == stored


def test_a_taken_back_token_replays_nothing_of_the_seats_new_holder_in_a_stale_process(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    """Two processes; "there" holds the table from before the seat's token was reissued.
    The old token, sent there with a key the new holder used since (keys are scoped by
    seat, not by token), must not get the new holder's answer -- its view, its hand."""

    def process() -> Application:
        store = RedisEventStore(redis_client, prefix=key_prefix)
        return Application(store, snapshot_every=25, accounts=AccountStore(redis_client, key_prefix))

    here, there = process(), process()
    assert here.accounts is not None
    account = here.accounts.register("ada" + secrets.token_hex(3)).account
    game_id = here.create_game("abluxxen", {}, [None, None])["game_id"]
    old = here.join(game_id, None, account=account).token
    here.join(game_id, "guest")
    stale = there.tables.load(game_id)  # "there" caches the running table
    new = here.reissue_token(game_id, account, 0).token
    legal = here.queries.legal(game_id, 0)
    command, version = legal["commands"][0], legal["version"]
    here.submit_outcome(game_id, new, command, version, "move-1")
    assert stale.version < version
    for expected in (stale.version, version, version + 1):
        with pytest.raises(Unauthenticated):
            there.submit_outcome(game_id, old, command, expected, "move-1")
