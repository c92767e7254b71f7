"""``tabletop play`` in a pseudo-terminal against a live server and real bot workers:
a whole game of each type chosen at the keyboard, and a client killed mid-game that
resumes from its token file, with a command refused in between (its reason shown)."""

from __future__ import annotations

import os
import random
import re
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.bot_worker import bot_worker
from support.live_server import LiveServer
from support.processes import ROOT
from support.pty_driver import PtyProcess

from tabletop_client import Seat, TabletopClient

PROMPT = r"Choose 1-(\d+) \(r to resign, q to quit\): "
EARS = r"Which (\d+) ear\(s\) to inspect\? \(ids, e\.g\. ([0-9 ]+)\): "
OVER = r"Game over \(\w+\)\. Scores: .*\. (You won!|You lost\.)"


@pytest.fixture(scope="module")
def bots(live_server: LiveServer) -> Iterator[None]:
    with bot_worker(live_server, think_ms=20):
        yield


def play(args: list[str], home: Path, live_server: LiveServer) -> PtyProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env.update(HOME=str(home), TERM="xterm-256color", COLUMNS="120", LINES="50")
    return PtyProcess(
        [sys.executable, "-m", "service.cli", "play", "--url", live_server.url, *args], env, ROOT
    )


def choose_until_the_end(terminal: PtyProcess, rng: random.Random, moves: int | None = None) -> int:
    """Pick random numbered moves (and the suggested ears) until the game is over, or
    ``moves`` choices were made; returns how many were made."""
    made = 0
    while moves is None or made < moves:
        index, match = terminal.expect([PROMPT, EARS, OVER])
        if index == 0:
            terminal.send(str(rng.randint(1, int(match[1]))))
            made += 1
        elif index == 1:
            terminal.send(match[2])
        else:
            return made
    return made


BOARD = r"(?m)^ 9 .*\n(.*\n){7} 1 .*\n\s+a  b  c  d  e  f  g  h  i"
CARDS = r"your hand: (\s*(\d+|X))+"


def test_a_whole_schlitzohr_game_it_creates_against_a_bot(
    live_server: LiveServer, bots: None, tmp_path: Path
) -> None:
    args = [
        "--game",
        "schlitzohr",
        "--players",
        "2",
        "--bots",
        "1=greedy",
        "--option",
        "turn_cap=10",
    ]
    game_id = whole_game(play([*args, "--name", "ada"], tmp_path, live_server), BOARD, live_server)
    # Once more, in the same seat: the rematch, with the same bot and options.
    again = whole_game(play(["--rematch"], tmp_path, live_server), BOARD, live_server)
    rematch = TabletopClient(live_server.url).view(again)
    assert again != game_id and rematch["rematch_of"] == game_id
    assert rematch["seats"][1]["bot"] == "greedy" and rematch["options"]["turn_cap"] == 10


def test_a_whole_abluxxen_game_it_joins_beside_two_bots(
    live_server: LiveServer, bots: None, tmp_path: Path
) -> None:
    client = TabletopClient(live_server.url)
    game_id = client.create_game("abluxxen", 3, bots={1: "greedy", 2: "random"})["game_id"]
    # A name that looks like rich markup is shown as it is, never interpreted.
    terminal = play(["--join", game_id, "--name", "[/b]ada"], tmp_path, live_server)
    assert whole_game(terminal, CARDS, live_server) == game_id
    assert "seat 0 [/b]ada (you)" in terminal.text
    assert (tmp_path / ".tabletop" / "play.json").exists()  # the default token file


def test_a_player_resigns_at_the_keyboard_after_saying_yes_and_the_bots_play_on(
    live_server: LiveServer, bots: None, tmp_path: Path
) -> None:
    args = ["--game", "schlitzohr", "--players", "3", "--bots", "1=random,2=random", "--name", "ada"]
    terminal = play(args, tmp_path, live_server)
    try:
        _, started = terminal.expect([r"Game (\S+), you are seat 0\."])
        terminal.expect([PROMPT])
        terminal.send("r")
        terminal.expect([r"Resign this game\? .*\(yes/no\): "])
        terminal.send("no")  # changed their mind: the same choice again
        terminal.expect([PROMPT])
        terminal.send("resign")
        terminal.expect([r"Resign this game\? .*\(yes/no\): "])
        terminal.send("yes")
        terminal.expect([r"You resigned\."])
        terminal.expect([r"You are out of this game .*; it plays on without you\."])
        assert terminal.wait() == 0
    finally:
        terminal.close()
    view = TabletopClient(live_server.url).view(started[1])
    assert view["state"]["forfeited"] == [0] and view["status"] in ("running", "finished")
    if view["status"] == "running":  # a resumed client says so too, and does not wait for a turn
        again = play(["--resume"], tmp_path, live_server)
        try:
            again.expect([r"You are out of this game"])
            assert again.wait() == 0
        finally:
            again.close()


def whole_game(terminal: PtyProcess, drawn: str, live_server: LiveServer) -> str:
    """Play the terminal's game to the end at random; returns its id."""
    try:
        _, started = terminal.expect([r"Game (\S+), you are seat 0\."])
        terminal.expect([drawn])
        assert choose_until_the_end(terminal, random.Random(started[1])) > 0
        terminal.expect([r"Play again, in the same seat: tabletop play --rematch"])
        assert terminal.wait() == 0
    finally:
        terminal.close()
    assert b"\x1b[" in terminal.raw  # drawn in colour
    assert "<- to act" in terminal.text
    assert re.search(r"v\d+ seat 1: [A-Z]\w+ ", terminal.text)  # the bot's moves, live
    assert TabletopClient(live_server.url).verification(started[1])["ok"]
    return started[1]


def test_a_client_killed_mid_game_resumes_from_its_token_file(
    live_server: LiveServer, bots: None, tmp_path: Path
) -> None:
    token_file = tmp_path / "seat.json"
    args = [
        "--game",
        "schlitzohr",
        "--players",
        "2",
        "--bots",
        "1=random",
        "--option",
        "turn_cap=12",
        "--name",
        "bob",
        "--token-file",
        str(token_file),
    ]
    first = play(args, tmp_path, live_server)
    try:
        first.expect([r"Game (\S+), you are seat 0\."])
        assert choose_until_the_end(first, random.Random(1), moves=3) == 3
        first.expect([PROMPT, EARS, r"Waiting for seat"])
        first.kill()  # mid-game, as a lost terminal would
    finally:
        first.close()
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    seat = Seat.load(str(token_file))
    assert "token" not in repr(seat) and seat.token not in repr(seat)

    second = play(["--resume", "--token-file", str(token_file)], tmp_path, live_server)
    try:
        second.expect([r"Game (\S+), you are seat 0\."])
        # Someone else with this seat's token acts first: the terminal's choice is
        # then stale, refused with its reason, and the game goes on.
        index, match = second.expect([PROMPT, EARS])
        legal = seat.legal()
        command = legal["commands"][0]
        seat.command(command)
        second.send("1" if index == 0 else match[2])
        # A numbered inspect asks for its ears before it is sent.
        index, match = second.expect([r"Refused: version_conflict: .+", EARS])
        if index == 1:
            second.send(match[2])
            second.expect([r"Refused: version_conflict: .+"])
        assert choose_until_the_end(second, random.Random(2)) >= 0
        assert second.wait() == 0
    finally:
        second.close()
    assert seat.view()["status"] == "finished"
    assert seat.client.verification(seat.game_id)["ok"]
