"""Every operator command on a ``redis+cluster://`` URL, against the local 3-master cluster:
``export``, ``verify --game``, ``import``, ``projections rebuild`` (all games and one),
``health redis`` (every master)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis.cluster import RedisCluster
from support.cluster import LocalCluster
from support.histories import Player, seed_for, write_game
from support.readmodels import dump_read_models
from support.redis import delete_prefix, unique_prefix

from events.projections import ReadModels, Updater
from events.projections.keys import ReadModelKeys
from events.redis_adapter import feed
from events.redis_adapter.store import RedisEventStore
from service.cli import main

pytestmark = pytest.mark.store


@pytest.fixture
def cluster(local_cluster: LocalCluster) -> Iterator[tuple[RedisCluster, str, list[str]]]:
    """A cluster client, two fresh prefixes, deleted afterwards; and the cluster's URL."""
    client, prefixes = local_cluster.client(), [unique_prefix(), unique_prefix()]
    first = local_cluster.nodes[1]  # any master will do
    yield client, f"redis+cluster://{first.host}:{first.port}", prefixes
    for prefix in prefixes:
        delete_prefix(client, prefix)
    client.close()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_export_verify_import_and_rebuild_on_a_cluster(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    cluster: tuple[RedisCluster, str, list[str]],
) -> None:
    client, url, (prefix, other) = cluster
    store = RedisEventStore(client, prefix=prefix)
    updater = Updater(store, ReadModels(client, prefix))
    specs: list[tuple[str, str, list[Player | None]]] = [
        ("k1", "abluxxen", [("Ann", None), ("Bob", "random")]),
        ("k2", "schlitzohr", [("Bob", None), ("Cy", None)]),
    ]
    for game_id, name, players in specs:
        write_game(
            store,
            game_id,
            name,
            players,
            seed=seed_for(game_id),
            on_append=lambda g, v: updater.update(g),
        )
    live = dump_read_models(client, prefix)
    target = ["--redis-url", url, "--prefix", prefix]

    path = tmp_path / "k1.jsonl"
    code, _, err = run(capsys, "export", "k1", "-o", str(path), *target)
    assert code == 0 and "(complete)" in err, err
    assert path.read_text().splitlines() == store.stored_texts("k1")
    assert run(capsys, "verify", "--game", "k2", *target)[0] == 0

    code, out, _ = run(capsys, "import", str(path), "--json", "--redis-url", url, "--prefix", other)
    assert code == 0 and json.loads(out)["game_id"] == "k1"
    assert RedisEventStore(client, prefix=other).stored_texts("k1") == store.stored_texts("k1")
    entries = client.xrange(feed.feed_key(other, feed.shard_of("k1", feed.shards_from_env())))
    assert entries and entries[-1][1][b"g"] == b"k1"  # the projectors were told

    keys = ReadModelKeys(prefix)
    client.hset(keys.view("k2"), "spectator", '"damaged"')
    code, out, _ = run(capsys, "projections", "rebuild", *target)
    assert code == 0 and out.startswith("rebuilt 2 game(s), "), out
    assert dump_read_models(client, prefix) == live
    client.delete(keys.view("k1"), keys.summary("k1"))
    code, out, _ = run(capsys, "projections", "rebuild", "--game", "k1", *target)
    assert code == 0 and out.startswith("rebuilt 1 game(s), "), out
    assert dump_read_models(client, prefix) == live


def test_an_unreachable_cluster_is_a_readable_error(capsys: pytest.CaptureFixture[str]) -> None:
    url = "redis+cluster://127.0.0.1:1"
    for argv in (["export", "k1"], ["verify", "--game", "k1"], ["projections", "rebuild"]):
        code, _, err = run(capsys, *argv, "--redis-url", url)
        assert code == 2 and f"Redis at {url} failed" in err and "Traceback" not in err, err


def test_health_redis_checks_every_master_of_a_cluster(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    local_cluster: LocalCluster,
    cluster: tuple[RedisCluster, str, list[str]],
) -> None:
    _, url, _ = cluster
    monkeypatch.setenv("TABLETOP_REDIS_URL", url)
    code, out, _ = run(capsys, "health", "redis")
    assert code == 0 and "3 masters" in out, out
    node = local_cluster.nodes[2].client()
    before = node.config_get("maxmemory")["maxmemory"]
    node.config_set("maxmemory-policy", "allkeys-lru")
    node.config_set("maxmemory", str(1 << 30))
    try:
        code, _, err = run(capsys, "health", "redis")
    finally:
        node.config_set("maxmemory-policy", "noeviction")
        node.config_set("maxmemory", before)
        node.close()
    assert code == 1 and "would evict" in err, err
