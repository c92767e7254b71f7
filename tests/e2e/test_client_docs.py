"""The complete example of docs/client.md, run as written against a live server and a
real bot worker: the documented client code plays a whole game and its audit passes."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest
from support.bot_worker import bot_worker
from support.live_server import LiveServer
from support.processes import ROOT


@pytest.fixture(scope="module")
def bots(live_server: LiveServer) -> Iterator[None]:
    with bot_worker(live_server):
        yield


def test_the_documented_example_plays_a_whole_game(live_server: LiveServer, bots: None) -> None:
    with open(os.path.join(ROOT, "docs", "client.md")) as source:
        example = re.search(r"```python\n(.*?)```", source.read(), re.S)
    assert example is not None
    env = {k: v for k, v in os.environ.items() if not k.startswith("TABLETOP_")}
    env["TABLETOP_URL"] = live_server.url
    done = subprocess.run(
        [sys.executable, "-c", example[1]],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[-1].startswith("scores [") and "winners [" in lines[-1]
    versions = [int(line.split()[0]) for line in lines[:-1]]  # one line per event, live
    assert versions == list(range(versions[0], versions[0] + len(versions)))
    assert lines[-2].split()[1] == "SeedRevealed"
