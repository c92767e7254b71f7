"""The data directory of ``tabletop up`` (admin token file, service.json, which Redis an
operator command uses) and the supervisor's restart policy, on real files and processes."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from service.runner.datadir import (
    admin_token,
    prepare,
    resolve_api_url,
    resolve_redis_url,
    write_record,
)
from service.runner.supervisor import CrashLoop, RestartPolicy, Supervisor


def test_the_admin_token_file_is_private_and_reused_unless_the_environment_names_one(
    tmp_path: Path,
) -> None:
    data_dir = prepare(tmp_path / "data")
    assert data_dir.stat().st_mode & 0o777 == 0o700
    token, path = admin_token(data_dir, {})
    assert path == data_dir / "admin-token" and path.read_text().strip() == token
    assert path.stat().st_mode & 0o777 == 0o600
    path.chmod(0o644)  # loosened by hand: the next up closes it again
    assert admin_token(data_dir, {}) == (token, path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert admin_token(data_dir, {"TABLETOP_ADMIN_TOKEN": "mine"}) == ("mine", None)


def test_operator_commands_take_the_recorded_redis_after_flags_and_environment(
    tmp_path: Path,
) -> None:
    assert resolve_redis_url(None, tmp_path, {}).url == "redis://127.0.0.1:6379/0"
    record = write_record(tmp_path, redis_url="redis://127.0.0.1:6383/0", api_url="http://h:1")
    assert record.stat().st_mode & 0o777 == 0o600
    assert json.loads(record.read_text())["redis_url"] == "redis://127.0.0.1:6383/0"
    recorded = resolve_redis_url(None, tmp_path, {})
    assert recorded.url == "redis://127.0.0.1:6383/0" and "service.json" in recorded.source
    env = {"REDIS_URL": "redis://r:1/0"}
    assert resolve_redis_url(None, tmp_path, env).url == "redis://r:1/0"
    env["TABLETOP_REDIS_URL"] = "redis://t:1/0"
    assert resolve_redis_url(None, tmp_path, env).url == "redis://t:1/0"
    assert resolve_redis_url("redis://flag:1/0", tmp_path, env).url == "redis://flag:1/0"
    assert resolve_api_url(None, tmp_path) == "http://h:1"
    assert resolve_api_url("http://x:2", tmp_path) == "http://x:2"


def test_backoff_doubles_up_to_its_cap() -> None:
    policy = RestartPolicy(first_backoff_s=0.5, max_backoff_s=4)
    assert [policy.backoff(n) for n in range(1, 6)] == [0.5, 1, 2, 4, 4]


def test_a_child_that_dies_at_once_is_restarted_then_reported_as_a_crash_loop() -> None:
    lines: list[str] = []
    policy = RestartPolicy(max_restarts=2, window_s=60, first_backoff_s=0.01, max_backoff_s=0.01)
    supervisor = Supervisor({}, say=lines.append, policy=policy)
    supervisor.start("doomed", [sys.executable, "-c", "raise SystemExit(3)"])
    try:
        with pytest.raises(CrashLoop) as raised:
            for _ in range(10):  # each round: the child dies, is noticed, is restarted
                supervisor.children[0].process.wait(30)
                supervisor.check()
                supervisor.children[0].process.wait(30)
                supervisor.check(supervisor.children[0].restart_at or 0)
    finally:
        supervisor.stop_all()
    assert "crash loop: doomed died 3 times within 60 s (last: exited with 3)" in str(raised.value)
    assert sum("restarted doomed" in line for line in lines) == 2
    assert sum("exited with 3; restarting in" in line for line in lines) == 2
