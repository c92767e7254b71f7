"""``tabletop export``, ``verify --game`` and ``import`` against a real Redis."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from support.audit import live_game, seed_of, write_batches
from support.redis import TestRedis, delete_prefix, unique_prefix

from events.redis_adapter import feed
from events.redis_adapter.store import RedisEventStore
from service.cli import main


@pytest.fixture
def target(redis_target: TestRedis, store: RedisEventStore) -> list[str]:
    """The Redis options naming the test's store."""
    return ["--redis-url", redis_target.url, "--prefix", store.prefix]


@pytest.fixture
def other_prefix(redis_client: redis.Redis) -> Iterator[str]:
    prefix = unique_prefix()
    yield prefix
    delete_prefix(redis_client, prefix)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_export_verify_import_round_trip(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    store: RedisEventStore,
    target: list[str],
    redis_target: TestRedis,
    other_prefix: str,
    redis_client: redis.Redis,
) -> None:
    live = live_game("abluxxen", 3, seed_of("cli-round-trip"), persons=1)
    write_batches(store, "g7", live)
    path = tmp_path / "g7.jsonl"
    code, _, err = run(capsys, "export", "g7", "-o", str(path), *target)
    assert code == 0 and "(complete)" in err
    assert path.read_text().splitlines() == store.stored_texts("g7")
    assert run(capsys, "verify", "--game", "g7", *target)[0] == 0
    assert run(capsys, "verify", str(path))[0] == 0

    elsewhere = ["--redis-url", redis_target.url, "--prefix", other_prefix]
    code, out, _ = run(capsys, "import", str(path), "--json", *elsewhere)
    assert code == 0
    assert json.loads(out) == {
        "ok": True,
        "game_id": "g7",
        "game": "abluxxen",
        "version": len(live.tables),
    }
    assert RedisEventStore(redis_client, prefix=other_prefix).stored_texts(
        "g7"
    ) == store.stored_texts("g7")
    entries = redis_client.xrange(
        feed.feed_key(other_prefix, feed.shard_of("g7", feed.shards_from_env()))
    )
    assert entries and (entries[-1][1] or {})[b"g"] == b"g7"  # the projectors were told

    code, _, err = run(capsys, "import", str(path), *elsewhere)
    assert code == 1 and "import refused (game_exists)" in err


def test_export_of_a_running_game_for_a_seat_and_stdout(
    capsys: pytest.CaptureFixture[str], store: RedisEventStore, target: list[str]
) -> None:
    live = live_game("schlitzohr", 2, seed_of("cli-running"), persons=2, max_commands=20)
    write_batches(store, "g8", live)
    code, out, err = run(capsys, "export", "g8", "--seat", "1", *target)
    assert code == 0 and "redacted for seat 1" in err
    lines: list[dict[str, Any]] = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == len(live.tables)
    assert all(e["private"] is None or 1 in e["visible_to"] for e in lines)
    code, out, _ = run(capsys, "export", "g8", "--admin", *target)
    assert code == 0 and out.splitlines() == store.stored_texts("g8")
    code, out, _ = run(capsys, "verify", "--game", "g8", "--json", *target)
    assert code == 1 and json.loads(out)["discrepancy"]["kind"] == "structure"


def test_unknown_games_and_unreachable_redis(
    capsys: pytest.CaptureFixture[str], target: list[str]
) -> None:
    code, _, err = run(capsys, "export", "nope", *target)
    assert code == 1 and "no game 'nope'" in err
    code, _, err = run(capsys, "verify", "--game", "nope", *target)
    assert code == 2 and "no game 'nope'" in err
    code, _, err = run(capsys, "export", "g1", "--redis-url", "redis://127.0.0.1:1/0")
    assert code == 2 and "Redis at redis://127.0.0.1:1/0 failed" in err
