"""``tabletop replay FILE --to N [--seat S] [--step]``: draw a game as it stood at a version.

``FILE`` is a complete export (``tabletop export``; its shape and hash chain are
checked first -- run ``tabletop verify`` for the full audit). Without ``--step`` it
draws the table right after version N (default: the last). With ``--step`` it
draws every version from ``--from`` (default 1) to N: on a terminal it waits for
Enter between them (``q`` quits); otherwise it prints them all, one after another.
``--seat S`` draws what seat S saw (its own inspected colours or hand); the default
is a spectator. Exit codes: 0 drawn, 1 the file cannot be replayed, 2 unreadable.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from typing import Any

from rich.console import Console
from rich.rule import Rule

from engine.table import Table
from events.audit.history import parse_lines
from events.audit.replay import ReplayError, tables, view_of
from events.audit.report import Discrepant
from events.audit.verify import load_envelopes
from events.model.envelope import Envelope
from service.cli.render import render
from service.cli.store_options import fail
from service.cli.verify import read_lines


def add_parser(sub: Any) -> None:
    p = sub.add_parser("replay", help="draw a game from an exported history at any version")
    p.add_argument("file", metavar="FILE", help="a complete exported history (- = stdin)")
    p.add_argument("--to", type=int, metavar="N", help="the version to draw (default: the last)")
    p.add_argument(
        "--from",
        dest="start",
        type=int,
        default=1,
        metavar="N",
        help="with --step: the first version to draw (default 1)",
    )
    p.add_argument(
        "--seat", type=int, metavar="S", help="draw what this seat saw (default: a spectator)"
    )
    p.add_argument("--step", action="store_true", help="step through the versions one by one")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    history = _load(args.file)
    last = len(history)
    to = last if args.to is None else args.to
    start = args.start if args.step else to
    if not 1 <= start <= to <= last:
        fail(f"versions must satisfy 1 <= --from <= --to <= {last}", 1)
    seats = history[0].data.get("seats")
    if args.seat is not None and not (isinstance(seats, int) and 0 <= args.seat < seats):
        fail(f"no seat {args.seat} in this game ({seats} seats)", 1)
    console = Console(highlight=False)
    interactive = args.step and sys.stdin.isatty()
    try:
        for table in _tables(history, start, to):
            _draw(console, table, history, args.seat)
            if interactive and table.version < to and not _go_on():
                break
    except ReplayError as err:
        fail(f"cannot replay: {err}", 1)
    return 0


def _go_on() -> bool:
    """Wait for Enter; False when the person types ``q`` or closes the input."""
    try:
        return input("Enter: next, q: quit ").strip().lower() != "q"
    except EOFError:
        return False


def _load(path: str) -> list[Envelope]:
    try:
        return load_envelopes(parse_lines(read_lines(path)))
    except Discrepant as found:
        d = found.discrepancy
        fail(f"cannot replay {path}: version {d.version} ({d.kind}): {d.message}", 1)


def _tables(history: Sequence[Envelope], start: int, to: int) -> Iterator[Table]:
    """The tables at versions ``start..to``, lazily (the fold starts at version 1 regardless)."""
    return (t for t in tables(history[:to]) if t.version >= start)


def _draw(console: Console, table: Table, history: Sequence[Envelope], seat: int | None) -> None:
    console.print(Rule(f"version {table.version}"))
    console.print(render(view_of(table, seat), history[table.version - 1], len(history)))
