"""The benches that drive the HTTP API still run against it, in a tiny configuration.

Why: a bench plays as a client, so it meets every limit the API sets. The idle bench
fell out of step once: it creates 40 games from one address, and the per-address caps on
games created and held open (issue #15) refused them, so it died before measuring
anything. Nothing ran it between the change and the next measurement. This runs each
such bench for a few seconds -- no figure is checked, only that it ran to its report
with every answer as expected.
"""

from __future__ import annotations

import subprocess
import sys

from support.processes import ROOT

from service.settings import Settings


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=240
    )


def test_the_idle_bench_runs_with_more_games_than_one_address_may_hold_open() -> None:
    # 25 games: above the default cap of 20 open games per client.
    done = _run("bench.idle_bench", "--streams", "40", "--long-polls", "10",
                "--commands", "20", "--games", "25")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "refused none, connection errors 0" in done.stdout, done.stdout


def test_the_protocol_bench_runs_with_every_answer_as_expected() -> None:
    # Its exit status is 1 when any answer was unexpected (a refusal, an error).
    done = _run("bench.protocol_bench", "--connections", "2", "--repeats", "1",
                "--duration", "1", "--warmup", "0.5")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "total req/s ratio" in done.stdout, done.stdout
    assert "bare all / protocol all CPU" in done.stdout, done.stdout
    assert "of which kernel (system CPU)" in done.stdout, done.stdout


def test_the_stream_serve_bench_runs() -> None:
    done = _run("bench.stream_serve_bench", "--games", "1", "--rounds", "1")
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("served/envelopes") == 2, done.stdout
    paced = _run("bench.stream_serve_bench", "--games", "1", "--rounds", "1", "--pace-ms", "0.1")
    assert paced.returncode == 0, paced.stderr[-2000:]
    assert "after 0.1 ms asleep" in paced.stdout, paced.stdout
    assert paced.stdout.count("served/envelopes") == 2, paced.stdout


def test_the_stream_relay_bench_runs_and_every_relay_relays_every_event() -> None:
    # Its exit status is 1 when a relay lost events (its CPU per event would flatter it).
    done = _run("bench.stream_relay_bench", "--games", "2", "--seconds", "0.5", "--rounds", "1")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    for relay in ("bare", "hub", "ours"):
        assert f"round 1 {relay}: " in done.stdout, done.stdout


def test_the_bot_timing_bench_runs_both_cases() -> None:
    # It plays through real workers and reads the bots' plays back from the store: a
    # change to the actor or command of a bot's events would leave it nothing to pair.
    done = _run("bench.bot_timing_bench", "--games", "2")
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split() for line in done.stdout.splitlines()[1:]]
    assert [row[0] for row in rows] == ["0", str(Settings().bot_floor_ms)], done.stdout
    assert all(int(row[1]) > 0 for row in rows), done.stdout


def test_the_bot_share_bench_runs_its_three_cases() -> None:
    # Real workers and the store's event times, as the bot timing bench: a change to how
    # a client's games are charged, or to a bot append's stamps, would leave it no rows.
    done = _run("bench.bot_share_bench", "--flood", "2", "--settle", "0.5")
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [line.split() for line in done.stdout.splitlines()[2:]]
    assert [row[0] for row in rows] == ["none", "flood-noshare", "flood-share"], done.stdout
    assert all(int(row[2]) > 0 for row in rows), done.stdout

