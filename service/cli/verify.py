"""``tabletop verify FILE`` / ``tabletop verify --game ID``: audit a whole game history.

Checks the hash chain, the revealed seed against its commitment, every random
outcome and every event re-computed by the rules, and the final scores (see
``events.audit.verify``). Prints a readable report, or with ``--json`` the report
object. ``FILE`` may be ``-`` for stdin; ``--game`` reads the stored history from
Redis. Exit codes: 0 verified, 1 a discrepancy (named with its version and kind),
2 could not run (file unreadable, Redis unreachable, no such game).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from events.audit.report import Report, render_text
from events.audit.verify import verify_lines, verify_stored
from service.cli.store_options import add_redis_arguments, fail, open_store


def add_parser(sub: Any) -> None:
    p = sub.add_parser("verify", help="verify a game history: chain, seed, outcomes, rules, scores")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("file", nargs="?", metavar="FILE", help="an exported history (- = stdin)")
    source.add_argument("--game", metavar="ID", help="verify the stored history of this game")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    add_redis_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    report = _from_store(args) if args.game else verify_lines(read_lines(args.file))
    if args.json:
        print(json.dumps(report.to_json(), sort_keys=True))
    else:
        sys.stdout.write(render_text(report))
    return 0 if report.ok else 1


def read_lines(path: str) -> list[bytes]:
    """The lines of ``path`` (``-`` = stdin) as bytes: decoding is the verifier's job, so a
    file that is not UTF-8 gets a report, not a traceback."""
    try:
        if path == "-":
            return sys.stdin.buffer.read().splitlines()
        with open(path, "rb") as handle:
            return handle.read().splitlines()
    except OSError as exc:
        fail(f"cannot read {path}: {exc.strerror or exc}")


def _from_store(args: argparse.Namespace) -> Report:
    with open_store(args) as opened:
        try:
            report = verify_stored(opened.store, args.game)
        except ValueError as exc:
            fail(str(exc))
    if report is None:
        fail(f"no game {args.game!r}")
    return report
