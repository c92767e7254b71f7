"""The archive of finished games, end to end: real Redis, a real API server (gunicorn),
SQLite and PostgreSQL archives, the ``tabletop`` commands.

For each archive backend, one Schlitzohr and one Abluxxen game are played to their end
through the API; every read path is recorded; the games are archived with ``tabletop
archive``; every read path must then answer the same (byte-equal exports, the same
verification reports, views at several versions, event pages, SSE, player totals, the
lobby), writes answer 422 ``game_over``, and ``tabletop projections rebuild`` rebuilds
from both stores. Expired games move too, and stay redacted as they were (no seed is
archived). Then: a crash between the move's steps (a ``tabletop archive`` process
killed by SIGKILL at each step) leaves the game readable and a re-run completes it, and
a tampered history is refused (not archived, not deleted).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
import requests
from support.archive_db import postgres_database
from support.http_games import HttpApi, create_game, move, play_randomly, seat_everyone
from support.live_server import LiveServer
from support.processes import start_tabletop
from support.redis import TestRedis, delete_prefix, unique_prefix

from events.archive.store import open_archive
from events.projections.keys import ReadModelKeys
from events.redis_adapter.keys import GameKeys
from service.cli import main as tabletop

ADMIN = "archive-admin-token-0123456789abcdef"


@contextlib.contextmanager
def _environment(env: dict[str, str]) -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def run_cli(env: dict[str, str], *args: str) -> tuple[int, str]:
    """``tabletop <args>`` in this process under ``env``; (exit code, stdout)."""
    out = io.StringIO()
    with _environment(env), contextlib.redirect_stdout(out):
        try:
            code = tabletop(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue()


class Deployment:
    """A live API server on the session's Redis with an archive, and two finished games."""

    def __init__(self, redis_target: TestRedis, archive_url: str) -> None:
        self.prefix = unique_prefix()
        self.archive_url = archive_url
        self.server = LiveServer(
            redis_target.url, self.prefix, admin_token=ADMIN, archive_url=archive_url,
            sse_max_s=5.0, sse_heartbeat_s=1.0, rate_limit_per_minute=0,
            replay_limit_per_minute=0, verify_limit_per_minute=0,
        ).start()
        self.env = dict(self.server.env)
        self.client = redis_target.client()
        self.session = requests.Session()
        self.api = HttpApi(self.session, self.server.url)
        self.tokens: dict[str, list[str]] = {}

    def play(self, game: str, options: dict[str, Any], seed: bytes) -> str:
        game_id = create_game(self.api, game, 2, options=options)
        self.tokens[game_id] = seat_everyone(self.api, game_id, 2)
        play_randomly(self.api, game_id, self.tokens[game_id], seed)
        return game_id

    def get(self, path: str, token: str | None = None) -> requests.Response:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return self.session.get(self.server.url + path, headers=headers, timeout=30)

    def close(self) -> None:
        log = self.server.log_text()
        self.server.stop()
        self.session.close()
        delete_prefix(self.client, self.prefix)
        delete_prefix(self.client, f"rq:queue:{self.server.queue}")
        self.client.close()
        assert "Traceback" not in log, log[-3000:]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def deployment(request: pytest.FixtureRequest, redis_target: TestRedis, tmp_path_factory: Any) -> Iterator[Deployment]:
    with contextlib.ExitStack() as stack:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path_factory.mktemp('archive') / 'archive.sqlite3'}"
        else:
            url = stack.enter_context(postgres_database())
        d = Deployment(redis_target, url)
        stack.callback(d.close)
        yield d


def snapshot(d: Deployment, game_id: str) -> dict[str, Any]:
    """Every read path's answer for ``game_id``, as bytes or parsed JSON."""
    seat0, seat1 = d.tokens[game_id]
    head = d.get(f"/v1/games/{game_id}").json()["version"]
    out: dict[str, Any] = {"head": head}
    out["view"] = d.get(f"/v1/games/{game_id}").content
    out["view_seat0"] = d.get(f"/v1/games/{game_id}", seat0).content
    for at in sorted({1, 2, head // 3, head // 2, head - 1, head}):
        out[f"at{at}"] = d.get(f"/v1/games/{game_id}?at={at}").content
        out[f"at{at}_seat1"] = d.get(f"/v1/games/{game_id}?at={at}", seat1).content
    for after, limit in ((0, 7), (5, 50), (0, 1000), (head - 3, 10)):
        out[f"events{after}_{limit}"] = d.get(f"/v1/games/{game_id}/events?after={after}&limit={limit}").content
        out[f"events{after}_{limit}_admin"] = d.get(f"/v1/games/{game_id}/events?after={after}&limit={limit}", ADMIN).content
    out["export"] = d.get(f"/v1/games/{game_id}/export", ADMIN).content
    out["export_public"] = d.get(f"/v1/games/{game_id}/export").content
    out["verification"] = d.get(f"/v1/games/{game_id}/verification").content
    out["legal"] = d.get(f"/v1/games/{game_id}/legal", seat0).content
    out["sse"] = d.get(f"/v1/games/{game_id}/events/stream?after=3").content
    out["totals"] = [d.get(f"/v1/players/player{i}").json() for i in (0, 1)]
    lobby = d.get("/v1/games?status=finished&limit=100").json()
    out["lobby"] = sorted(json.dumps(g, sort_keys=True) for g in lobby["games"])
    code, text = run_cli(d.env, "verify", f"--game={game_id}", "--json")
    out["verify_cli"] = (code, text)
    code, text = run_cli(d.env, "export", "--", game_id)  # an id may start with "-"
    out["export_cli"] = (code, text)
    return out


def test_every_read_path_answers_the_same_after_archiving(deployment: Deployment, tmp_path: Path) -> None:
    d = deployment
    games = [
        d.play("schlitzohr", {"turn_cap": 10}, b"archive-s"),
        d.play("abluxxen", {"rounds": 1}, b"archive-a"),
    ]
    assert run_cli(d.env, "projections", "rebuild")[0] == 0  # lobby and totals (no projector runs here)
    before = {g: snapshot(d, g) for g in games}
    for g in games:
        assert b'"ok":true' in before[g]["verification"].replace(b" ", b"")
        assert before[g]["verify_cli"][0] == 0 and before[g]["export_cli"][0] == 0

    code, text = run_cli(d.env, "archive", "--older-than", "0")
    assert code == 0, text
    assert all(f"archived {g}" in text for g in games), text

    keys = ReadModelKeys(d.prefix)
    for g in games:
        game_keys = GameKeys.of(d.prefix, g)
        assert not d.client.exists(game_keys.events, game_keys.head, game_keys.idempotency, game_keys.seed,
                                   game_keys.snapshot, game_keys.verification, keys.view(g))
        assert d.client.exists(keys.summary(g))  # the lobby's entry stays
    archive = open_archive(d.archive_url)
    assert sorted(archive.game_ids()) == sorted(games)
    archive.close()

    after = {g: snapshot(d, g) for g in games}
    for g in games:
        for name in before[g]:
            assert after[g][name] == before[g][name], (g, name)

    # Replay from an archived export draws the same as from a live one.
    exported = tmp_path / "export.jsonl"
    exported.write_bytes(after[games[0]]["export"])
    assert run_cli(d.env, "replay", str(exported))[0] == 0
    # Its id stays taken: importing the export again is refused, nothing written to Redis.
    assert run_cli(d.env, "import", str(exported))[0] == 1
    assert not d.client.exists(GameKeys.of(d.prefix, games[0]).head)

    # Writes to an archived game answer like a finished game.
    g = games[0]
    reply = d.session.post(
        f"{d.server.url}/v1/games/{g}/commands", json={"command": {"kind": "pass"}},
        headers={"Authorization": f"Bearer {d.tokens[g][0]}", "If-Match": f'"{before[g]["head"]}"'},
        timeout=30,
    )
    assert reply.status_code == 422 and reply.json()["code"] == "game_over", reply.text

    # A full rebuild (read models deleted) rebuilds archived games from the archive.
    code, text = run_cli(d.env, "projections", "rebuild")
    assert code == 0 and "rebuilt 2 game(s)" in text, text
    for g in games:
        assert not d.client.exists(keys.view(g))  # archived: no view hash comes back
        rebuilt = snapshot(d, g)
        assert rebuilt["lobby"] == before[g]["lobby"] and rebuilt["totals"] == before[g]["totals"]
        assert rebuilt["view"] == before[g]["view"]


def expired_snapshot(d: Deployment, game_id: str, seat0: str) -> dict[str, Any]:
    """Every read path's answer for an expired game, for a spectator and for seat 0."""
    head = d.get(f"/v1/games/{game_id}").json()["version"]
    out: dict[str, Any] = {"head": head}
    for who, token in (("spectator", None), ("seat0", seat0)):
        out[f"view_{who}"] = d.get(f"/v1/games/{game_id}", token).content
        for at in sorted({1, head // 2, head}):
            out[f"at{at}_{who}"] = d.get(f"/v1/games/{game_id}?at={at}", token).content
        out[f"events_{who}"] = d.get(f"/v1/games/{game_id}/events?after=0&limit=1000", token).content
        out[f"sse_{who}"] = d.get(f"/v1/games/{game_id}/events/stream?after=0", token).content
    out["events_admin"] = d.get(f"/v1/games/{game_id}/events?after=0&limit=1000", ADMIN).content
    out["export"] = d.get(f"/v1/games/{game_id}/export", ADMIN).content
    out["export_public"] = d.get(f"/v1/games/{game_id}/export").content
    verification = d.get(f"/v1/games/{game_id}/verification")
    out["verification"] = (verification.status_code, verification.json()["code"])
    lobby = d.get("/v1/games?status=expired&limit=100").json()
    out["lobby"] = sorted(json.dumps(g, sort_keys=True) for g in lobby["games"] if g["game_id"] == game_id)
    return out


def test_expired_games_are_archived_too_and_their_hidden_facts_stay_hidden(deployment: Deployment) -> None:
    """Expired games left Redis never: about 21 KB each, for ever. They move like finished
    ones -- but their seed was never revealed, so the archive keeps no seed and serves
    them redacted exactly as Redis did (a spectator sees no hand, seat 0 only its own)."""
    from datetime import UTC, datetime, timedelta

    from service.app.application import NoNotifier
    from service.bootstrap import build
    from service.settings import Settings

    d = deployment
    idle = create_game(d.api, "abluxxen", 2, options={"rounds": 1})
    idle_tokens = seat_everyone(d.api, idle, 2)
    for _ in range(4):
        move(d.api, idle, idle_tokens)
    lonely = create_game(d.api, "schlitzohr", 2)
    lonely_token = d.api.call("POST", f"/v1/games/{lonely}/seats", body={"name": "ada"}).body["token"]
    svc = build(Settings(redis_url=d.env["TABLETOP_REDIS_URL"], key_prefix=d.prefix), notifier=NoNotifier(), client=d.client)
    later = datetime.now(UTC) + timedelta(days=30)
    assert svc.app.expire_idle(idle, 3600, later).expired
    assert svc.app.expire(lonely, 3600, later)
    assert run_cli(d.env, "projections", "rebuild")[0] == 0  # the lobby lists them as expired
    seats = {idle: idle_tokens[0], lonely: lonely_token}
    before = {g: expired_snapshot(d, g, seats[g]) for g in seats}
    for g in seats:
        assert before[g]["verification"] == (409, "game_not_finished") and before[g]["lobby"]
        for line in before[g]["export_public"].decode().splitlines():  # nothing hidden is public
            assert json.loads(line)["private"] is None

    code, text = run_cli(d.env, "archive", "--older-than", "0")
    assert code == 0 and f"archived {idle}" in text and f"archived {lonely}" in text, text
    archive = open_archive(d.archive_url)
    try:
        for g in seats:
            game_keys = GameKeys.of(d.prefix, g)
            assert not d.client.exists(game_keys.events, game_keys.head, game_keys.seed, game_keys.snapshot)
            archived = archive.read(g)
            assert archived is not None and archived.ended_at is None
            assert archived.seed is None and archived.report is None  # the seed left with Redis
            assert archive.head(g) is not None and not archive.head(g).finished  # type: ignore[union-attr]
    finally:
        archive.close()
    after = {g: expired_snapshot(d, g, seats[g]) for g in seats}
    for g in seats:
        for name in before[g]:
            assert after[g][name] == before[g][name], (g, name)

    # Writes answer as they did before the move: the game expired.
    joined = d.api.call("POST", f"/v1/games/{lonely}/seats", body={"name": "bob"})
    assert joined.status == 422 and joined.code == "game_expired", joined.body
    view = d.get(f"/v1/games/{idle}", idle_tokens[1]).json()
    reply = d.session.post(
        f"{d.server.url}/v1/games/{idle}/commands", json={"command": {"kind": "pass"}},
        headers={"Authorization": f"Bearer {idle_tokens[1]}", "If-Match": f'"{view["version"]}"'}, timeout=30,
    )
    assert reply.status_code == 422 and reply.json()["code"] == "game_expired", reply.text


def _kill_at(d: Deployment, game_id: str, step: str) -> None:
    env = {**d.env, "TABLETOP_TEST_ARCHIVE_CRASH_AT": step}
    process = start_tabletop(["archive", f"--game={game_id}"], env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == -signal.SIGKILL, err.decode()[-2000:]
    assert not psutil.pid_exists(process.pid) or psutil.Process(process.pid).status() == psutil.STATUS_ZOMBIE


@pytest.mark.parametrize("step", ["verified", "committed", "checked"])
def test_a_crash_between_the_steps_leaves_the_game_readable_and_a_rerun_completes(
    deployment: Deployment, step: str
) -> None:
    d = deployment
    game_id = d.play("schlitzohr", {"turn_cap": 10}, f"crash-{step}".encode())
    export = d.get(f"/v1/games/{game_id}/export", ADMIN).content
    _kill_at(d, game_id, step)
    # Killed mid-move: the game is still in Redis and reads the same.
    assert d.client.exists(GameKeys.of(d.prefix, game_id).head)
    assert d.get(f"/v1/games/{game_id}/export", ADMIN).content == export
    code, text = run_cli(d.env, "archive", f"--game={game_id}")
    assert code == 0, text
    assert not d.client.exists(GameKeys.of(d.prefix, game_id).head)
    assert d.get(f"/v1/games/{game_id}/export", ADMIN).content == export


@pytest.mark.parametrize("step", ["verified", "committed", "checked"])
def test_a_crash_between_the_steps_of_an_expired_games_move_keeps_it_hidden_and_a_rerun_completes(
    deployment: Deployment, step: str
) -> None:
    """An expired game's seed is deleted, never archived: a crash after the archive has
    its copy (and before Redis lets go of the seed) must leave it served exactly as
    before, redacted, and a re-run must finish the move with no seed in the archive."""
    from datetime import UTC, datetime, timedelta

    from service.app.application import NoNotifier
    from service.bootstrap import build
    from service.settings import Settings

    d = deployment
    game_id = create_game(d.api, "abluxxen", 2, options={"rounds": 1})
    tokens = seat_everyone(d.api, game_id, 2)
    for _ in range(3):
        move(d.api, game_id, tokens)
    svc = build(Settings(redis_url=d.env["TABLETOP_REDIS_URL"], key_prefix=d.prefix), notifier=NoNotifier(), client=d.client)
    assert svc.app.expire_idle(game_id, 3600, datetime.now(UTC) + timedelta(days=30)).expired
    before = expired_snapshot(d, game_id, tokens[0])
    _kill_at(d, game_id, step)
    assert d.client.exists(GameKeys.of(d.prefix, game_id).seed)  # killed mid-move: Redis keeps all
    assert expired_snapshot(d, game_id, tokens[0]) == before
    code, text = run_cli(d.env, "archive", f"--game={game_id}")
    assert code == 0, text
    assert not d.client.exists(GameKeys.of(d.prefix, game_id).head, GameKeys.of(d.prefix, game_id).seed)
    archive = open_archive(d.archive_url)
    try:
        archived = archive.read(game_id)
        assert archived is not None and archived.seed is None and archived.report is None
    finally:
        archive.close()
    assert expired_snapshot(d, game_id, tokens[0]) == before


def test_the_archive_command_of_a_data_directory_writes_the_archive_its_service_reads(
    deployment: Deployment, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``tabletop archive --data-dir D`` found ``up``'s Redis through D but wrote to the
    SQLite archive under the current directory: the games left Redis for an archive the
    service never reads, and its API answered 404 for them. It must use D's archive, the
    one ``up`` gives its children."""
    from service.runner.datadir import write_record

    d = deployment
    game_id = d.play("schlitzohr", {"turn_cap": 10}, b"data-dir")
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    write_record(data_dir, redis_url=d.env["TABLETOP_REDIS_URL"], api_url=d.server.url)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    env = {k: v for k, v in d.env.items() if k not in ("TABLETOP_REDIS_URL", "TABLETOP_ARCHIVE_URL", "TABLETOP_DATA_DIR")}
    code, text = run_cli(env, "archive", "--data-dir", str(data_dir), f"--game={game_id}")
    assert code == 0, text
    assert not (elsewhere / ".tabletop").exists()
    archive = open_archive(f"sqlite:///{data_dir / 'archive.sqlite3'}")
    try:
        assert archive.head(game_id) is not None
    finally:
        archive.close()


def test_a_tampered_history_is_refused_and_kept(deployment: Deployment) -> None:
    d = deployment
    game_id = d.play("schlitzohr", {"turn_cap": 10}, b"tampered")
    keys = GameKeys.of(d.prefix, game_id)
    real_seed = d.client.get(keys.seed)
    d.client.set(keys.seed, "00" * 32)  # seal-2 digests no longer match the stored seed
    try:
        code, _ = run_cli(d.env, "archive", f"--game={game_id}")
        assert code == 1
        assert d.client.exists(keys.events, keys.head) == 2
        archive = open_archive(d.archive_url)
        assert archive.head(game_id) is None
        archive.close()
    finally:
        d.client.set(keys.seed, real_seed)


def test_the_sweeper_archives_games_past_the_age_in_bounded_batches(deployment: Deployment) -> None:
    import time

    from service.bootstrap import build
    from service.settings import Settings
    from workers.sweeper import archive_games_over

    d = deployment
    games = [d.play("schlitzohr", {"turn_cap": 10}, f"sweep-{i}".encode()) for i in range(2)]
    settings = Settings(
        redis_url=d.env["TABLETOP_REDIS_URL"], key_prefix=d.prefix, archive_url=d.archive_url,
        archive_after_s=3600, archive_batch=1,
    )
    svc = build(settings, client=d.client)
    try:
        assert archive_games_over(svc) == []  # finished moments ago: not due
        later = time.time() + 7200
        moved: list[str] = []
        for _ in range(10):  # one game per pass (the batch), until none is left
            batch = archive_games_over(svc, now=later)
            assert len(batch) <= 1
            if not batch:
                break
            moved += batch
        assert set(games) <= set(moved)
        for g in games:
            assert not d.client.exists(GameKeys.of(d.prefix, g).head)
            assert d.get(f"/v1/games/{g}").status_code == 200
    finally:
        if svc.store.archive is not None:
            svc.store.archive.close()


def test_an_unreachable_archive_is_a_503_never_a_500(redis_target: TestRedis, key_prefix: str) -> None:
    """A game Redis does not hold may be archived: while the archive cannot be asked,
    the answer is 503 ``store_unavailable`` (retry), not a 404 and not a 500."""
    from service.bootstrap import build
    from service.http import create_app
    from service.settings import Settings

    client = redis_target.client()
    settings = Settings(
        redis_url=redis_target.url, key_prefix=key_prefix,
        archive_url="postgresql://postgres@127.0.0.1:1/nowhere?connect_timeout=1",
    )
    svc = build(settings, client=client)
    try:
        http = create_app(services=svc).test_client()
        for path in ("/v1/games/noSuchGame", "/v1/games/noSuchGame/events", "/v1/games/noSuchGame/export"):
            reply = http.get(path)
            assert reply.status_code == 503 and reply.get_json()["code"] == "store_unavailable", (path, reply.data)
    finally:
        if svc.store.archive is not None:
            svc.store.archive.close()
        client.close()
