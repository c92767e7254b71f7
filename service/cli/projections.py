"""``tabletop projections rebuild [--game ID]``: read models from the game streams alone.

Without ``--game`` every read model under the key prefix is deleted and rebuilt
(see ``events.projections.rebuild``); with it, only that game's. Shows a progress
bar over events on a terminal (stderr) and prints a one-line summary. Exit codes: 0 done,
1 unknown game or a history that cannot be projected, 2 could not run (bad
settings, Redis unreachable). Redis options as in ``service.cli.store_options``.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from events.model.errors import GameNotFound
from events.projections import ReadModels, RebuildReport, Update, Updater, rebuild
from events.projections.model import UnprojectableGame
from service.cli.store_options import add_redis_arguments, open_store


def add_parser(sub: Any) -> None:
    p = sub.add_parser("projections", help="maintain the read models (views, lobby, totals, ratings)")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    r = actions.add_parser("rebuild", help="rebuild read models from the game streams alone")
    r.add_argument("--game", metavar="ID", help="rebuild only this game (default: every game)")
    add_redis_arguments(r)
    r.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    with open_store(args) as opened:
        client, store = opened.client, opened.store
        updater = Updater(store, ReadModels(client, store.prefix))
        try:
            report = _rebuild_with_progress(updater, client, args.game)
        except (GameNotFound, UnprojectableGame, ValueError) as exc:
            print(f"tabletop projections rebuild: {exc}", file=sys.stderr)
            return 1
    seconds = time.perf_counter() - started
    rate = report.events / seconds if seconds > 0 else 0.0
    print(
        f"rebuilt {report.games} game(s), {report.events} events"
        f" in {seconds:.2f}s ({rate:,.0f} events/s)"
    )
    return 0


def _rebuild_with_progress(updater: Updater, client: Any, game_id: str | None) -> RebuildReport:
    store = updater.reader
    with _progress() as progress:
        task = progress.add_task("rebuilding", total=None)

        def on_plan(plan: dict[str, int]) -> None:
            progress.update(task, total=sum(plan.values()))

        def on_game(outcome: Update) -> None:
            progress.advance(task, outcome.version)

        archive = getattr(store, "archive", None)  # the Redis reader's; the port has none
        archived = archive.game_ids() if archive is not None and game_id is None else ()
        return rebuild(
            updater, client, game_id=game_id, on_plan=on_plan, on_game=on_game, archived=archived
        )


def _progress() -> Progress:
    """A bar over events on stderr, drawn only when stderr is a terminal (stdout keeps
    just the summary line, for scripts)."""
    console = Console(stderr=True)
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("events"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    )
