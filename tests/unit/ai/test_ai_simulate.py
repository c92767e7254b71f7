"""``tabletop simulate --bots``: bots per seat, deterministic, clear errors."""

from __future__ import annotations

import json

import pytest

from service.cli import main


def simulate(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["simulate", *args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("game", ["schlitzohr", "abluxxen"])
def test_bots_play_and_repeat_byte_for_byte(capsys: pytest.CaptureFixture[str], game: str) -> None:
    args = ("--game", game, "--players", "3", "--games", "2", "--seed", "b", "--json",
            "--bots", "strong,greedy,random", "--budget", "4")
    first = simulate(capsys, *args)
    assert first == simulate(capsys, *args)
    for line in first.splitlines():
        record = json.loads(line)
        assert record["bots"] == ["strong", "greedy", "random"]
        assert record["winners"] and len(record["scores"]) == 3


def test_without_bots_the_output_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    # The very lines ``simulate`` printed before ``--bots`` existed (no "bots" key).
    out = simulate(capsys, "--game", "abluxxen", "--players", "2", "--seed", "7", "--json")
    line = json.loads(out)
    assert "bots" not in line


def test_the_human_summary_names_the_bots(capsys: pytest.CaptureFixture[str]) -> None:
    out = simulate(capsys, "--game", "abluxxen", "--players", "2", "--bots", "greedy,random")
    assert "bots per seat: 0: greedy, 1: random" in out


@pytest.mark.parametrize(
    ("bots", "message"),
    [("greedy", "one level per seat"), ("greedy,genius", "unknown level 'genius'")],
)
def test_bad_bots_are_clear_errors(bots: str, message: str) -> None:
    with pytest.raises(SystemExit) as err:
        main(["simulate", "--game", "abluxxen", "--players", "2", "--bots", bots])
    assert message in str(err.value)
