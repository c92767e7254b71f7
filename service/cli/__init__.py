"""``tabletop``: the one console command for every job of the project.

Each sub-command lives in its own module with ``add_parser(subparsers)`` and a
``run(args) -> int`` function; this module only wires them together.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from types import ModuleType

from service.cli import (
    archive,
    contract,
    export,
    health,
    import_history,
    play,
    projections,
    replay,
    serve,
    simulate,
    sweeper,
    up,
    verify,
    worker,
)

COMMANDS: tuple[ModuleType, ...] = (
    simulate, up, export, verify, replay, import_history, projections,
    serve, worker, sweeper, health, archive, contract,
    play,  # the terminal client, on tabletop_client only (docs/client.md)
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tabletop", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run the chosen sub-command; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `tabletop simulate --json | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
