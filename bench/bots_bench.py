"""Bot strength and speed: win rates per pairing, and the strong bot's decision time.

For each game, player count (2 and 4) and pairing A vs B (greedy vs random,
strong vs greedy, strong vs random) it plays ``--games`` games, engine only: one
seat A, every other seat B, and A's seat rotated game by game (game ``k`` puts A
on seat ``k mod players``). A's win rate counts a win shared by ``n`` seats as
``1/n``; with equal bots it would be ``1/players``. Every decision of a strong
bot is timed, by the wall clock and by its process's CPU time (the bot's own cost:
on a shared machine the wall clock also counts the time spent waiting for a
core); the table gives the mean and the 95th percentile. Games run in ``--jobs``
processes, one core each.

    .venv/bin/python -m bench.bots_bench [--games 200] [--jobs 2] [--game schlitzohr]
        [--players 2] [--pairing strong-greedy] [--budget N] [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from rich.console import Console
from rich.progress import Progress
from rich.table import Table

from engine.ai import bot_policy
from engine.model import JSON
from engine.playout import Policy, play
from engine.registry import game_names, get_game
from engine.rng import RandomSource

PAIRINGS = (("greedy", "random"), ("strong", "greedy"), ("strong", "random"))
PLAYER_COUNTS = (2, 4)


@dataclass(frozen=True)
class Job:
    game: str
    players: int
    a: str
    b: str
    k: int
    budget: int | None


@dataclass
class Cell:
    """The results of one (game, players, pairing)."""

    games: int = 0
    a_wins: float = 0.0
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)


class Timed:
    """A policy that records the wall and CPU time of each decision."""

    def __init__(self, inner: Policy) -> None:
        self.inner = inner
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def __call__(self, view: JSON, legal: list[JSON], rng: RandomSource, purpose: str) -> JSON:
        wall, cpu = time.perf_counter(), time.process_time()
        command = self.inner(view, legal, rng, purpose)
        self.wall.append(time.perf_counter() - wall)
        self.cpu.append(time.process_time() - cpu)
        return command


def play_one(job: Job) -> tuple[Job, float, list[float], list[float]]:
    """One game: A's share of the win and the strong bots' decision times."""
    seat_a = job.k % job.players
    policies = {
        seat: Timed(bot_policy(job.game, job.a if seat == seat_a else job.b, job.budget))
        for seat in range(job.players)
    }
    seed = f"bots-bench:{job.game}:{job.players}:{job.a}-{job.b}:{job.k}".encode()
    result = play(get_game(job.game), job.players, seed, policies=policies).result
    share = 1 / len(result.winners) if seat_a in result.winners else 0.0
    strong = [p for seat, p in policies.items() if (job.a if seat == seat_a else job.b) == "strong"]
    return job, share, [t for p in strong for t in p.wall], [t for p in strong for t in p.cpu]


def jobs(args: argparse.Namespace) -> Iterator[Job]:
    for name in [args.game] if args.game else game_names():
        for players in [args.players] if args.players else PLAYER_COUNTS:
            for a, b in PAIRINGS:
                if args.pairing in (None, f"{a}-{b}"):
                    for k in range(args.games):
                        yield Job(name, players, a, b, k, args.budget)


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 2 else (values or [0.0])[0]


def run(args: argparse.Namespace) -> dict[tuple[str, int, str], Cell]:
    todo = list(jobs(args))
    cells: dict[tuple[str, int, str], Cell] = {}
    with Progress() as progress, ProcessPoolExecutor(args.jobs) as pool:
        task = progress.add_task("games", total=len(todo))
        for job, share, wall, cpu in pool.map(play_one, todo, chunksize=1):
            key = (job.game, job.players, f"{job.a} vs {job.b}")
            cell = cells.setdefault(key, Cell())
            cell.games += 1
            cell.a_wins += share
            cell.wall += wall
            cell.cpu += cpu
            progress.advance(task)
            if cell.games == args.games:  # a line per finished cell, also in a log file
                progress.console.print(f"{key}: A wins {100 * cell.a_wins / cell.games:.1f} %")
    return cells


def report(cells: dict[tuple[str, int, str], Cell]) -> Table:
    table = Table(title="bots: A's win rate (A on one seat, rotated; B on all others)")
    for column in ("game", "players", "A vs B", "games", "A wins", "fair share",
                   "strong ms mean", "strong ms p95", "strong CPU ms mean", "strong CPU ms p95"):
        table.add_column(column, justify="right")
    for (name, players, pairing), cell in sorted(cells.items()):
        timing = ["-"] * 4
        if cell.wall:
            timing = [
                f"{1000 * f(t):.0f}" for t in (cell.wall, cell.cpu) for f in (statistics.fmean, p95)
            ]
        share, fair = f"{100 * cell.a_wins / cell.games:.1f} %", f"{100 / players:.0f} %"
        table.add_row(name, str(players), pairing, str(cell.games), share, fair, *timing)
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per pairing (default 200)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--game", choices=game_names())
    parser.add_argument("--players", type=int, choices=PLAYER_COUNTS)
    parser.add_argument("--pairing", choices=[f"{a}-{b}" for a, b in PAIRINGS])
    parser.add_argument("--budget", type=int, help="strong bot simulations (default: the game's)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args()
    started = time.perf_counter()
    cells = run(args)
    Console(width=160).print(report(cells))
    print(f"{time.perf_counter() - started:.0f} s")
    if args.json:
        with open(args.json, "w") as out:
            json.dump([as_json(key, cell) for key, cell in sorted(cells.items())], out, indent=2)


def as_json(key: tuple[str, int, str], cell: Cell) -> dict[str, object]:
    game, players, pairing = key
    out: dict[str, object] = {"game": game, "players": players, "pairing": pairing,
                              "games": cell.games, "a_win_rate": cell.a_wins / cell.games}
    if cell.wall:
        out |= {"strong_ms_mean": 1000 * statistics.fmean(cell.wall),
                "strong_ms_p95": 1000 * p95(cell.wall),
                "strong_cpu_ms_mean": 1000 * statistics.fmean(cell.cpu),
                "strong_cpu_ms_p95": 1000 * p95(cell.cpu),
                "strong_decisions": len(cell.wall)}
    return out


if __name__ == "__main__":
    main()
