"""The outcome text a command answers with: encoded once, and byte for byte the same on
an idempotent retry (non-ASCII names included)."""

from __future__ import annotations

import json

import pytest
import redis

from events.redis_adapter.store import RedisEventStore
from service.app import documents
from service.app.application import Application

pytestmark = pytest.mark.store


def test_a_keyed_retry_answers_the_very_text_of_the_first_answer(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    app = Application(RedisEventStore(redis_client, prefix=key_prefix))
    game_id = app.create_game("schlitzohr", {}, [None, None])["game_id"]
    tokens = [app.join(game_id, name).token for name in ("Zoë", "骰子 🎲")]
    version = app.queries.view(game_id, 0)["version"]
    command = app.queries.legal(game_id, 0)["commands"][0]

    first = app.submit_outcome(game_id, tokens[0], command, version, "key-1")
    again = app.submit_outcome(game_id, tokens[0], command, version, "key-1")

    assert "Zoë" in first.text and "\\u" not in first.text  # UTF-8 as is, not escaped
    assert again.text == first.text
    assert json.loads(first.text) == first.document == again.document
    assert first.text == documents.encode_outcome(first.document)  # sorted keys: see retries
    assert app.submit(game_id, tokens[0], command, version, "key-1") == first.document
