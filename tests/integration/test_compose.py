"""docker-compose.yml without Docker: every command exists, Redis keeps an AOF, all have health checks.

No Docker engine runs here, so the file is checked against the project itself:
each ``tabletop ...`` command (service command or health check) must parse with the
real CLI parser, and ``python -m <module> ...`` must name a module whose own parser
accepts the arguments.
"""

from __future__ import annotations

import importlib
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
import yaml

from service.bootstrap import queue_redis_url
from service.cli import build_parser
from service.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SERVICES = {"redis", "api", "worker", "projector", "sweeper"}


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = compose["services"]
    return found


def check_project_command(argv: list[str]) -> None:
    """Fail unless ``argv`` is a command this project really has, with valid arguments."""
    if argv[0] == "tabletop":
        args = build_parser().parse_args(argv[1:])  # SystemExit(2) on anything unknown
        assert callable(args.run)
        with pytest.raises(SystemExit) as help_exit:
            build_parser().parse_args([argv[1], "--help"])
        assert help_exit.value.code == 0
    elif argv[:2] == ["python", "-m"]:
        module = importlib.import_module(argv[2])
        assert callable(module.main)
        module.parse_args(argv[3:])
    else:
        pytest.fail(f"not a command of the project: {argv}")


def test_every_part_of_the_service_is_there(compose: dict[str, Any]) -> None:
    assert SERVICES <= set(services(compose))


def test_every_command_is_one_the_project_has(
    compose: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    for name, service in services(compose).items():
        if name == "redis":
            continue
        check_project_command(service["command"])
        assert service["build"] == "." and (ROOT / "Dockerfile").is_file()
    capsys.readouterr()  # the --help texts


def test_every_service_has_a_health_check(
    compose: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    for name, service in services(compose).items():
        test = service["healthcheck"]["test"]
        assert test[0] == "CMD", name
        if name != "redis":
            check_project_command(test[1:])
    assert services(compose)["redis"]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"]
    capsys.readouterr()


def test_redis_runs_with_aof_on_a_volume(compose: dict[str, Any]) -> None:
    redis = services(compose)["redis"]
    command = redis["command"]
    assert command[0] == "redis-server"
    assert command[command.index("--appendonly") + 1] == "yes"
    assert command[command.index("--appendfsync") + 1] in {"always", "everysec"}
    volume = redis["volumes"][0].split(":")
    assert volume[1] == "/data" and volume[0] in compose["volumes"]


def test_api_and_workers_scale_out(compose: dict[str, Any]) -> None:
    api = services(compose)["api"]["command"]
    assert int(api[api.index("--workers") + 1]) >= 2
    assert services(compose)["worker"]["deploy"]["replicas"] >= 2
    for name in SERVICES - {"redis"}:
        environment = services(compose)[name]["environment"]
        assert environment["TABLETOP_REDIS_URL"] == "redis://redis:6379/0"
        assert services(compose)[name]["depends_on"]["redis"]["condition"] == "service_healthy"


def test_every_setting_is_documented_in_the_operations_page() -> None:
    page = (ROOT / "docs" / "operations.md").read_text()
    missing = [f.name for f in fields(Settings) if f"`TABLETOP_{f.name.upper()}`" not in page]
    assert missing == []


# The cluster variant (docker-compose.cluster.yml): the store on a 3-master cluster,
# RQ on a plain Redis, the same commands and checks.

CLUSTER_NODES = {"redis-1", "redis-2", "redis-3"}
CLUSTER_TABLETOP = {"api", "worker", "projector", "sweeper"}


@pytest.fixture(scope="module")
def cluster_compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.cluster.yml").read_text())
    return loaded


def _flag(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_the_cluster_variant_has_every_part(cluster_compose: dict[str, Any]) -> None:
    expected = CLUSTER_NODES | CLUSTER_TABLETOP | {"redis-cluster-init", "redis-queue"}
    assert expected <= set(services(cluster_compose))


def test_the_cluster_variant_runs_project_commands_with_health_checks(
    cluster_compose: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    found = services(cluster_compose)
    for name in CLUSTER_TABLETOP:
        check_project_command(found[name]["command"])
        test = found[name]["healthcheck"]["test"]
        assert test[0] == "CMD", name
        check_project_command(test[1:])
        assert found[name]["build"] == "."
    for name in CLUSTER_NODES | {"redis-queue"}:
        assert found[name]["healthcheck"]["test"] == ["CMD", "redis-cli", "ping"], name
    capsys.readouterr()


def test_the_cluster_nodes_keep_an_aof_and_announce_their_names(
    cluster_compose: dict[str, Any],
) -> None:
    for name in CLUSTER_NODES | {"redis-queue"}:
        node = services(cluster_compose)[name]
        command = node["command"]
        assert command[0] == "redis-server", name
        assert _flag(command, "--appendonly") == "yes", name
        assert _flag(command, "--appendfsync") in {"always", "everysec"}, name
        assert _flag(command, "--maxmemory-policy") == "noeviction", name
        volume = node["volumes"][0].split(":")
        assert volume[1] == "/data" and volume[0] in cluster_compose["volumes"], name
        if name in CLUSTER_NODES:
            assert _flag(command, "--cluster-enabled") == "yes"
            assert _flag(command, "--cluster-announce-hostname") == name


def test_the_cluster_init_joins_every_node(cluster_compose: dict[str, Any]) -> None:
    init = services(cluster_compose)["redis-cluster-init"]
    script = " ".join(init["command"])
    assert "--cluster create" in script and "--cluster-replicas 0" in script
    for node in CLUSTER_NODES:
        assert f"{node}:6379" in script
        assert init["depends_on"][node]["condition"] == "service_healthy"


def test_the_cluster_variant_gives_rq_a_plain_redis(cluster_compose: dict[str, Any]) -> None:
    found = services(cluster_compose)
    nodes = {f"{node}:6379" for node in CLUSTER_NODES}
    for name in CLUSTER_TABLETOP:
        environment = found[name]["environment"]
        store = environment["TABLETOP_REDIS_URL"]
        assert store.startswith("redis+cluster://")
        assert store.removeprefix("redis+cluster://") in nodes
        assert environment["TABLETOP_QUEUE_REDIS_URL"] == "redis://redis-queue:6379/0"
        # The settings as a process in that container reads them (interpolations from
        # the operator's shell left out): valid, and RQ's Redis is the plain one.
        fixed = {k: str(v) for k, v in environment.items() if not str(v).startswith("${")}
        settings = Settings.from_env(fixed)
        assert queue_redis_url(settings) == "redis://redis-queue:6379/0"
        depends = found[name]["depends_on"]
        assert depends["redis-cluster-init"]["condition"] == "service_completed_successfully"
        assert depends["redis-queue"]["condition"] == "service_healthy"
    assert found["api"]["deploy"]["replicas"] >= 2 and found["worker"]["deploy"]["replicas"] >= 2
