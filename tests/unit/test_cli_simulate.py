"""``tabletop simulate``: deterministic output, the promised JSON fields."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from engine.registry import game_names
from service.cli import main


def simulate(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["simulate", *args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("game", game_names())
def test_same_arguments_give_byte_identical_output(capsys: pytest.CaptureFixture[str], game: str) -> None:
    args = ("--game", game, "--players", "3", "--games", "3", "--seed", "42", "--json")
    first = simulate(capsys, *args)
    assert first == simulate(capsys, *args)
    other = simulate(capsys, "--game", game, "--players", "3", "--games", "3", "--seed", "43", "--json")
    assert other != first


@pytest.mark.parametrize("game", game_names())
def test_json_lines_carry_the_promised_fields(capsys: pytest.CaptureFixture[str], game: str) -> None:
    lines = simulate(capsys, "--game", game, "--players", "2", "--games", "2", "--seed", "s", "--json").splitlines()
    assert len(lines) == 2
    for k, line in enumerate(lines):
        record = json.loads(line)
        assert {"seed", "players", "scores", "winners", "turns", "events"} <= set(record)
        assert record["seed"] == f"s:{k}"
        assert record["players"] == 2 and len(record["scores"]) == 2
        assert set(record["winners"]) <= {0, 1} and record["winners"]
        assert record["turns"] >= 1 and record["events"] > record["turns"]


def test_human_output_ends_with_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    out = simulate(capsys, "--game", "abluxxen", "--players", "4", "--games", "2")
    assert "2 games, 4 players" in out and "wins per seat" in out


def test_options_reach_the_game(capsys: pytest.CaptureFixture[str]) -> None:
    one = json.loads(simulate(capsys, "--game", "abluxxen", "--players", "2", "--json"))
    two = json.loads(simulate(capsys, "--game", "abluxxen", "--players", "2", "--option", "rounds=2", "--json"))
    assert two["events"] > one["events"]


def test_a_bad_option_is_a_clear_error() -> None:
    with pytest.raises(SystemExit) as err:
        main(["simulate", "--game", "abluxxen", "--players", "2", "--option", "rounds=0"])
    assert "invalid_option" in str(err.value)


def test_the_console_script_is_installed() -> None:
    exe = shutil.which("tabletop") or str(__import__("pathlib").Path(sys.executable).parent / "tabletop")
    out = subprocess.run(
        [exe, "simulate", "--game", "schlitzohr", "--players", "2", "--seed", "7", "--json"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout
    assert json.loads(out)["seed"] == "7:0"
