"""``tabletop verify FILE`` and ``tabletop replay FILE``: files only, no Redis."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from support.audit import live_game, rehash, seal_batches, seed_of

from events.audit.history import to_lines
from service.cli import main


def _write(path: Path, items: list[dict[str, Any]]) -> str:
    path.write_text("".join(line + "\n" for line in to_lines(items)), encoding="utf-8")
    return str(path)


@pytest.fixture(scope="module")
def played() -> dict[str, list[dict[str, Any]]]:
    return {
        game: seal_batches(f"cli-{game}", live_game(game, 3, seed_of(f"cli-{game}"), persons=1))
        for game in ("schlitzohr", "abluxxen")
    }


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


# -- verify ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["schlitzohr", "abluxxen"])
def test_verify_an_honest_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], played: Any, game: str
) -> None:
    path = _write(tmp_path / "game.jsonl", played[game])
    code, out, _ = run(capsys, "verify", path)
    assert code == 0
    assert out.startswith(f"game cli-{game} ({game}), {len(played[game])} events: OK")
    code, out, _ = run(capsys, "verify", path, "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] is True and report["discrepancy"] is None
    assert report["result"]["scores"] == played[game][-2]["data"]["scores"]


def test_verify_names_the_first_discrepancy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], played: Any
) -> None:
    items = json.loads(json.dumps(played["schlitzohr"]))
    at = next(i for i, e in enumerate(items) if e["type"] == "DieRolled")
    items[at]["data"]["value"] = items[at]["data"]["value"] % 6 + 1
    path = _write(tmp_path / "forged.jsonl", rehash(items))
    code, out, _ = run(capsys, "verify", path)
    assert code == 1
    assert f"FAILED at version {at + 1} (random_outcome)" in out
    code, out, _ = run(capsys, "verify", "--json", path)
    assert code == 1
    assert json.loads(out)["discrepancy"]["version"] == at + 1


def test_verify_garbage_and_missing_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_bytes(b'{"version": 1}\n\xff\n')
    code, out, err = run(capsys, "verify", str(garbage))
    assert code == 1 and "FAILED at version 1 (structure)" in out and "Traceback" not in out + err
    code, out, err = run(capsys, "verify", str(tmp_path / "nothing.jsonl"))
    assert code == 2 and "cannot read" in err


def test_verify_reads_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], played: Any
) -> None:
    import io
    import sys

    data = "".join(line + "\n" for line in to_lines(played["abluxxen"])).encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert run(capsys, "verify", "-")[0] == 0


# -- replay ------------------------------------------------------------------------------


def test_replay_draws_the_schlitzohr_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], played: Any
) -> None:
    path = _write(tmp_path / "s.jsonl", played["schlitzohr"])
    code, out, _ = run(capsys, "replay", path, "--to", "2")
    assert code == 0
    assert "version 2/" in out and "GameSetUp" in out
    rows = [line for line in out.splitlines() if re.match(r"^ [1-9] ", line)]
    assert len(rows) == 9
    assert rows[0].split()[1:] == [".", ".", "g", "g", "##", "g", "g", ".", "."]  # rank 9
    assert "3" in rows[6].split() and "##" in rows[4]  # ear 3 on f3; a5 is blocked
    assert "R" not in out.split("commitment")[1].split("seat 0")[0]  # no colour known yet


def test_replay_for_a_seat_shows_its_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], played: Any
) -> None:
    items = played["abluxxen"]
    path = _write(tmp_path / "a.jsonl", items)
    dealt = next(e for e in items if e["type"] == "HandDealt" and e["data"]["seat"] == 1)
    hand = sorted(dealt["private"]["cards"], key=lambda c: 99 if c == "X" else c)
    setup_end = next(i for i, e in enumerate(items) if e["type"] == "DisplayDealt") + 1
    code, out, _ = run(capsys, "replay", path, "--to", str(setup_end), "--seat", "1")
    assert code == 0
    assert " ".join(map(str, hand)) in " ".join(out.split())
    code, spectator, _ = run(capsys, "replay", path, "--to", str(setup_end))
    assert " ".join(map(str, hand)) not in " ".join(spectator.split())


def test_replay_steps_through_versions_without_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], played: Any
) -> None:
    path = _write(tmp_path / "s.jsonl", played["schlitzohr"])
    code, out, _ = run(capsys, "replay", path, "--step", "--from", "10", "--to", "14")
    assert code == 0
    assert re.findall(r"─ version (\d+) ─", out) == ["10", "11", "12", "13", "14"]


def test_replay_refuses_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], played: Any
) -> None:
    items = json.loads(json.dumps(played["schlitzohr"]))
    path = _write(tmp_path / "s.jsonl", items)
    assert run(capsys, "replay", path, "--to", str(len(items) + 1))[0] == 1
    assert run(capsys, "replay", path, "--seat", "7")[0] == 1
    items[5]["data"]["seat"] = 2
    code, _, err = run(capsys, "replay", _write(tmp_path / "edited.jsonl", items))
    assert code == 1 and "version 6 (chain)" in err
