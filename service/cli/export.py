"""``tabletop export GAME``: a game's history as JSON Lines, read from the event store.

Complete (verifiable, importable) once the game has ended, or with ``--admin``;
before that redacted for ``--seat N`` or, by default, a spectator. Writes to
``-o FILE`` or stdout; a one-line summary goes to stderr. Exit codes: 0 written,
1 no such game, 2 could not run (bad settings, Redis unreachable, file not writable).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from events.audit.export import export_history
from events.model.errors import GameNotFound
from events.model.redaction import ADMIN, SPECTATOR, Viewer
from service.cli.store_options import add_redis_arguments, fail, open_store


def add_parser(sub: Any) -> None:
    p = sub.add_parser("export", help="export a game's history as JSON Lines")
    p.add_argument("game", metavar="GAME", help="the game id")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, help="export as this seat sees it (while the game runs)")
    who.add_argument(
        "--admin", action="store_true", help="the complete history, even while it runs"
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")
    add_redis_arguments(p)
    p.set_defaults(run=run)


def viewer_of(args: argparse.Namespace) -> Viewer:
    if args.admin:
        return ADMIN
    return SPECTATOR if args.seat is None else int(args.seat)


def run(args: argparse.Namespace) -> int:
    viewer = viewer_of(args)
    with open_store(args) as opened:
        try:
            exported = export_history(opened.store, args.game, viewer)
        except (GameNotFound, ValueError) as exc:
            fail(str(exc), 1)
    try:
        if args.output:
            Path(args.output).write_text(exported.text(), encoding="utf-8")
        else:
            sys.stdout.write(exported.text())
            sys.stdout.flush()
    except OSError as exc:
        fail(f"cannot write {args.output}: {exc}")
    how = "complete" if exported.complete else f"redacted for {_name(viewer)}: the game is running"
    print(f"exported {len(exported.lines)} events of game {args.game} ({how})", file=sys.stderr)
    return 0


def _name(viewer: Viewer) -> str:
    return f"seat {viewer}" if isinstance(viewer, int) else "a spectator"
