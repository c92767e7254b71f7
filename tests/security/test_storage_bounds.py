"""Bounded storage (issue 11, finding 5).

Repros: open games that never started lived for ever (the open list held 2,033 spam
games); every keyed command kept about 3 KB of idempotency record for ever; Redis ran
without a memory policy. Defences: the sweeper expires open games (``GameExpired``),
a cap on open games per client, slim idempotency records that expire once the game
has ended, and ``noeviction`` everywhere with a health check that fails otherwise.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
import yaml
from support.http_games import FlaskApi, HttpApi, create_game, move, play_randomly, seat_everyone
from support.live_server import LiveServer
from support.processes import (
    ROOT,
    running,
    running_projector,
    service_env,
    wait_until,
)
from support.redis import TestRedis
from support.security_servers import own_server

from events.redis_adapter.keys import GameKeys
from events.redis_adapter.lane import lane_for
from events.redis_adapter.server import RedisServer
from service.app.application import NoNotifier
from service.bootstrap import build
from service.cli.health import eviction_check
from service.http import create_app
from service.http.ratelimit import RateLimiter
from service.runner.redis import start_embedded_redis
from service.settings import Settings

OPEN_TTL_S = 2


@pytest.fixture(scope="module")
def bounded_server(redis_target: TestRedis) -> Iterator[LiveServer]:
    """Short open-game TTL, a short record TTL, a fast sweeper."""
    with own_server(
        redis_target,
        rate_limit_per_minute=0,
        open_game_ttl_s=OPEN_TTL_S,
        max_open_games_per_client=0,
        idempotency_ttl_s=600,
        sweep_interval_s=0.2,
    ) as server:
        yield server


@pytest.fixture
def api(bounded_server: LiveServer) -> Iterator[HttpApi]:
    with requests.Session() as session:
        yield HttpApi(session, bounded_server.url)


def test_an_open_game_that_never_starts_expires(
    api: HttpApi, bounded_server: LiveServer, redis_target: TestRedis
) -> None:
    game_id = create_game(api, "abluxxen", 3)
    joined = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": "ada"}).body
    with running_projector(bounded_server.env):
        wait_until(lambda: game_id in _listed(api, "open"), 30, "the lobby to list the game", 0.1)
        with running(["sweeper"], bounded_server.env):
            view = wait_until(
                lambda: _expired(api, game_id), 30, "the sweeper to expire the game", 0.1
            )
        assert view["to_act"] == {} and view["seed"] is None
        wait_until(lambda: game_id in _listed(api, "expired"), 30, "the lobby to move it", 0.1)
        assert game_id not in _listed(api, "open")
    # Recorded, by the system, as the last event; nothing can follow.
    events = api.call("GET", f"/v1/games/{game_id}/events").body["events"]
    assert events[-1]["type"] == "GameExpired" and events[-1]["actor"] == {"kind": "system"}
    assert events[-1]["data"] == {"reason": "not_started", "open_s": OPEN_TTL_S}
    join = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": "bob"})
    assert (join.status, join.code) == (422, "game_expired"), join.body
    leave = api.call("DELETE", f"/v1/games/{game_id}/seats/{joined['seat']}", token=joined["token"])
    assert (leave.status, leave.code) == (422, "game_expired"), leave.body
    command = api.call(
        "POST",
        f"/v1/games/{game_id}/commands",
        token=joined["token"],
        body={"command": {"kind": "pass"}, "expected_version": events[-1]["version"]},
    )
    assert (command.status, command.code) == (422, "game_expired"), command.body
    # Never started, nothing to verify: the seed stays secret, the export redacted.
    verification = api.call("GET", f"/v1/games/{game_id}/verification")
    assert (verification.status, verification.code) == (409, "game_not_finished")
    export = api.call("GET", f"/v1/games/{game_id}/export")
    assert export.status == 200 and export.headers["Tabletop-Export"] == "redacted"
    client = redis_target.client()
    try:
        prefix = bounded_server.env["TABLETOP_KEY_PREFIX"]
        assert client.zscore(f"{prefix}games:open", game_id) is None
    finally:
        client.close()


def _expired(api: HttpApi, game_id: str) -> dict[str, Any] | None:
    view = api.call("GET", f"/v1/games/{game_id}").body
    return view if view["status"] == "expired" else None


def _listed(api: HttpApi, status: str) -> set[str]:
    page = api.call("GET", f"/v1/games?status={status}&limit=500").body
    return {g["game_id"] for g in page["games"]}


def test_a_client_may_hold_only_so_many_open_games(redis_target: TestRedis) -> None:
    with own_server(redis_target, rate_limit_per_minute=0, max_open_games_per_client=3) as server, requests.Session() as s:
        _cap_holds(HttpApi(s, server.url), server)


def _cap_holds(api: HttpApi, bounded_server: LiveServer) -> None:
    created = [create_game(api, "schlitzohr", 2) for _ in range(3)]
    refused = api.call("POST", "/v1/games", body={"game": "schlitzohr", "players": 2})
    assert (refused.status, refused.code) == (429, "too_many_open_games"), refused.body
    assert 0 < int(refused.headers["Retry-After"]) <= 86_400  # the oldest one's expiry
    # Re-spelled or made-up headers are no new identity: still the same address.
    for headers in ({"Authorization": "Bearer x1"}, {"X-Forwarded-For": "203.0.113.9"}):
        again = api.call("POST", "/v1/games", body={"game": "schlitzohr", "players": 2}, headers=headers)
        assert (again.status, again.code) == (429, "too_many_open_games"), again.body
    # Games of bots only start at once: never open, never counted.
    assert create_game(api, "schlitzohr", 2, bots={"0": "random", "1": "random"})
    # A game that starts frees its place.
    seat_everyone(api, created[0], 2)
    assert create_game(api, "schlitzohr", 2)
    # The operator is not capped.
    admin = api.call(
        "POST",
        "/v1/games",
        body={"game": "schlitzohr", "players": 2},
        token=bounded_server.env["TABLETOP_ADMIN_TOKEN"],
    )
    assert admin.status == 201, admin.body


IDLE_TTL_S = 2


def test_games_a_client_starts_and_never_plays_are_capped_and_expire_when_idle(redis_target: TestRedis) -> None:
    """The attack: create games, take every seat, never move -- each stayed in Redis for
    ever (21 KB for 5-player Abluxxen; 30 a minute pass the creation limit)."""
    with own_server(
        redis_target,
        rate_limit_per_minute=0,
        max_open_games_per_client=0,
        max_unfinished_games_per_client=2,
        idle_game_ttl_s=IDLE_TTL_S,
        sweep_interval_s=0.2,
    ) as server, requests.Session() as s:
        api = HttpApi(s, server.url)
        idle, played = (create_game(api, "abluxxen", 2) for _ in range(2))
        tokens = {game_id: seat_everyone(api, game_id, 2) for game_id in (idle, played)}
        body = {"game": "abluxxen", "players": 2}
        refused = api.call("POST", "/v1/games", body=body)
        assert (refused.status, refused.code) == (429, "too_many_unfinished_games"), refused.body
        assert 1 <= int(refused.headers["Retry-After"]) <= IDLE_TTL_S  # the oldest one's idle expiry
        bots = api.call("POST", "/v1/games", body={**body, "bots": {"0": "random", "1": "random"}})
        assert (bots.status, bots.code) == (429, "too_many_unfinished_games"), bots.body
        admin = api.call("POST", "/v1/games", body=body, token=server.env["TABLETOP_ADMIN_TOKEN"])
        assert admin.status == 201, admin.body  # the operator is not capped

        with running_projector(server.env):
            with running(["sweeper"], server.env):
                # One game is played a move every 0.3 s, the other not at all.
                wait_until(lambda: move(api, played, tokens[played]) and _expired(api, idle), 30, "its expiry", 0.3)
                assert api.call("GET", f"/v1/games/{played}").body["status"] == "running"
            wait_until(lambda: idle in _listed(api, "expired"), 30, "the lobby to move it", 0.1)
            assert idle not in _listed(api, "running") and played in _listed(api, "running")
        last = api.call("GET", f"/v1/games/{idle}/events").body["events"][-1]
        assert (last["type"], last["actor"], last["data"]["reason"]) == ("GameExpired", {"kind": "system"}, "idle")
        assert last["data"]["idle_s"] >= IDLE_TTL_S
        for token in tokens[idle]:
            late = api.call(
                "POST",
                f"/v1/games/{idle}/commands",
                token=token,
                body={"command": {"kind": "pass"}, "expected_version": last["version"]},
            )
            assert (late.status, late.code) == (422, "game_expired"), late.body
        verification = api.call("GET", f"/v1/games/{idle}/verification")
        assert (verification.status, verification.code) == (409, "game_not_finished")
        again = api.call("POST", "/v1/games", body=body)
        assert again.status == 201, again.body  # the expired game's place is free


def test_idempotency_records_are_slim_and_expire_once_the_game_ended(
    api: HttpApi, bounded_server: LiveServer, redis_target: TestRedis
) -> None:
    game_id = create_game(api, "schlitzohr", 2, options={"turn_cap": 10})
    tokens = seat_everyone(api, game_id, 2)
    client = redis_target.client()
    key = GameKeys.of(bounded_server.env["TABLETOP_KEY_PREFIX"], game_id).idempotency
    try:
        steps: list[int] = []

        def keyed(seat: int, outcome: dict[str, Any]) -> None:
            steps.append(outcome["version"])

        # Keys on every command, as the docs recommend.
        session_api = _KeyedApi(api)
        play_randomly(session_api, game_id, tokens, b"keys", after=keyed)
        records = client.hgetall(key)
        assert len(records) == len(steps)
        assert max(len(r) for r in records.values()) < 250  # not the ~3 KB answer
        assert 0 < client.ttl(key) <= 600  # expires, the game being over
        client.delete(key)  # as the TTL will
        view = api.call("GET", f"/v1/games/{game_id}").body
        late = api.call(
            "POST",
            f"/v1/games/{game_id}/commands",
            token=tokens[0],
            body={"command": {"kind": "pass"}},
            headers={"If-Match": '"3"', "Idempotency-Key": "k0"},
        )
        assert (late.status, late.code) == (409, "version_conflict"), late.body
        assert late.body["current_version"] == view["version"]
    finally:
        client.close()


class _KeyedApi:
    """An API client that sends a fresh ``Idempotency-Key`` with every command."""

    def __init__(self, api: HttpApi) -> None:
        self.api, self.n = api, 0

    def call(self, method: str, path: str, **kwargs: Any) -> Any:
        if method == "POST" and path.endswith("/commands"):
            self.n += 1
            kwargs["headers"] = {**(kwargs.get("headers") or {}), "Idempotency-Key": f"k{self.n}"}
        return self.api.call(method, path, **kwargs)


@contextmanager
def api_on(server: RedisServer, key_prefix: str, **overrides: Any) -> Iterator[tuple[redis.Redis, FlaskApi]]:
    """The app (no bots) on its own Redis ``server``, and a client of that Redis."""
    client = redis.Redis(port=server.port)
    try:
        settings = Settings(redis_url=server.url, key_prefix=key_prefix, **overrides)
        app = create_app(services=build(settings, notifier=NoNotifier(), client=client))
        yield client, FlaskApi(app.test_client())
    finally:
        client.close()


def test_a_full_redis_refuses_writes_with_a_clear_answer_and_loses_nothing(key_prefix: str) -> None:
    with (
        RedisServer(config={"maxmemory-policy": "noeviction"}) as full,
        api_on(full, key_prefix, rate_limit_per_minute=0) as (client, api),
    ):
        game_id = create_game(api, "schlitzohr", 2)
        for i in range(300):
            client.set(f"ballast:{i}", "x" * 10_000)
        # Full: the limit below what is used (as memory grows past it in production).
        client.config_set("maxmemory", client.info("memory")["used_memory"] // 2)
        with pytest.raises(redis.exceptions.OutOfMemoryError):
            client.set("one-more", "x")
        refused = api.call("POST", "/v1/games", body={"game": "schlitzohr", "players": 2})
        assert (refused.status, refused.code) == (503, "store_full"), refused.body
        assert refused.headers["Retry-After"] == "60"
        assert api.call("GET", f"/v1/games/{game_id}").status == 200  # nothing evicted


def fail_persistence(client: redis.Redis, tmp_path: Path) -> Path:
    """Make ``client``'s Redis unable to persist (as with a full disk): an RDB snapshot
    into a directory that is gone fails, and with a save point configured Redis then
    refuses every write with ``MISCONF`` (and ``PING``). The directory to bring back."""
    gone = tmp_path / "gone"
    gone.mkdir()
    client.config_set("save", "3600 1")
    client.config_set("dir", str(gone))
    gone.rmdir()
    client.bgsave()
    wait_until(lambda: client.info("persistence")["rdb_last_bgsave_status"] == "err", 10.0, "the snapshot to fail")
    with pytest.raises(redis.exceptions.ResponseError, match="^MISCONF"):
        client.set("one-more", "x")
    return gone


def test_a_redis_that_cannot_persist_refuses_writes_clearly_and_reads_go_on(key_prefix: str, tmp_path: Path) -> None:
    # Every write, the rate limiter's counters included, was a 500 internal_error: a full
    # disk turned the whole API, reads too, into errors. Default rate limits (counted in
    # Redis), but none on verifications: a report computed while Redis takes no writes
    # is served, though not kept.
    with (
        RedisServer(directory=tmp_path / "redis") as server,
        api_on(server, key_prefix, verify_limit_per_minute=0) as (client, api),
    ):
        game_id = create_game(api, "schlitzohr", 2)
        tokens = seat_everyone(api, game_id, 2)
        view = api.call("GET", f"/v1/games/{game_id}", token=tokens[0]).body
        finished, fresh = (create_game(api, "schlitzohr", 2, options={"turn_cap": 10}) for _ in "ab")
        for done in (finished, fresh):
            play_randomly(api, done, seat_everyone(api, done, 2), b"unwritable")
        assert api.call("GET", f"/v1/games/{finished}/verification").status == 200  # kept
        gone = fail_persistence(client, tmp_path)
        reads = [
            api.call("GET", f"/v1/games/{game_id}", token=tokens[0]),
            api.call("GET", f"/v1/games/{game_id}/legal", token=tokens[0]),
            api.call("GET", f"/v1/games/{game_id}/events"),
            api.call("GET", "/v1/games"),
            api.call("GET", f"/v1/games/{finished}/verification"),  # kept: no work
            api.call("GET", f"/v1/games/{fresh}/verification"),  # computed, not kept now
        ]
        assert [r.status for r in reads] == [200] * len(reads), [r.body for r in reads]
        command = {"command": {"kind": "roll"}, "expected_version": view["version"]}
        writes = [
            api.call("POST", f"/v1/games/{game_id}/commands", token=tokens[0], body=command),
            api.call("POST", "/v1/games", body={"game": "schlitzohr", "players": 2}),
            api.call("POST", f"/v1/games/{game_id}/stream-tickets", token=tokens[0]),
        ]
        # Expensive work is counted per client in Redis: what cannot be counted is not
        # done for anyone (replays and exports here).
        expensive = [
            api.call("GET", f"/v1/games/{game_id}?at=1"),
            api.call("GET", f"/v1/games/{game_id}/export"),
        ]
        for refused in writes + expensive:
            assert (refused.status, refused.code) == (503, "store_unwritable"), refused.body
            assert refused.headers["Retry-After"] == "10"
        ready = api.call("GET", "/readyz")  # Redis refuses PING too: not ready
        assert (ready.status, ready.code) == (503, "not_ready")
        assert api.call("GET", f"/v1/games/{game_id}").body["version"] == view["version"]  # nothing written
        # The disk is back: a snapshot succeeds and writes resume by themselves.
        gone.mkdir()
        client.config_set("dir", str(gone))  # Redis's working directory was the deleted one
        client.bgsave()
        wait_until(lambda: client.info("persistence")["rdb_last_bgsave_status"] == "ok", 10.0, "a snapshot")
        played = api.call("POST", f"/v1/games/{game_id}/commands", token=tokens[0], body=command)
        assert played.status == 200, played.body


@pytest.mark.parametrize("on_the_lane", [True, False])
def test_the_rate_limit_lets_requests_through_when_redis_is_full(key_prefix: str, on_the_lane: bool) -> None:
    # Its lease is a write Redis refuses then (noeviction): reads must go on, and writes
    # are refused anyway (503 store_full, above). Counted on the store's lane (the general
    # limit) or with a pipeline (the expensive ones), the answer is the same.
    with RedisServer(config={"maxmemory-policy": "noeviction"}) as full:
        client = redis.Redis(port=full.port)
        try:
            limiter = RateLimiter(client, key_prefix, 5, lane=lane_for(client) if on_the_lane else None)
            assert [limiter.hit("ip:a") for _ in range(6)][-1] is not None  # counted: the 6th waits
            for i in range(300):
                client.set(f"ballast:{i}", "x" * 10_000)
            client.config_set("maxmemory", client.info("memory")["used_memory"] // 2)
            with pytest.raises(redis.exceptions.OutOfMemoryError):
                client.set("one-more", "x")
            assert [limiter.hit(f"ip:{n}") for n in "bcd"] == [None, None, None]
        finally:
            client.close()


def test_redis_never_evicts_the_store(tmp_path: Path) -> None:
    # The embedded Redis of ``tabletop up``:
    server = start_embedded_redis(tmp_path)
    try:
        client = redis.Redis(port=server.port)
        assert client.config_get("maxmemory-policy") == {"maxmemory-policy": "noeviction"}
        assert eviction_check(client)[0] is True
        client.close()
    finally:
        server.close()
    # docker-compose.yml's Redis:
    compose = yaml.safe_load((Path(ROOT) / "docker-compose.yml").read_text())
    command = compose["services"]["redis"]["command"]
    assert command[command.index("--maxmemory-policy") + 1] == "noeviction"
    # ``tabletop health redis`` fails on a Redis that would evict the store's keys.
    evicting = RedisServer(config={"maxmemory": "64mb", "maxmemory-policy": "allkeys-lru"}).start()
    try:
        env = service_env(f"redis://127.0.0.1:{evicting.port}/0", "tt:", "q")
        check = subprocess.run(
            [sys.executable, "-m", "service.cli", "health", "redis"],
            env=env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert check.returncode == 1 and "allkeys-lru" in check.stderr, check.stderr
    finally:
        evicting.close()
