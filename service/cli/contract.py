"""``tabletop contract``: regenerate the generated schemas of ``openapi.yaml`` (``--check``:
only say whether the committed file is current; exit 1 if not)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from service.http.spec import SPEC_PATH


def add_parser(sub: Any) -> None:
    parser = sub.add_parser("contract", help=__doc__.splitlines()[0].strip("`: "))
    parser.add_argument("--check", action="store_true", help="fail if openapi.yaml is stale")
    parser.add_argument("--path", type=Path, default=SPEC_PATH, help="the OpenAPI file")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from service.contract import document

    if args.check:
        if document.is_current(args.path):
            return 0
        print(f"{args.path} is stale: run `tabletop contract`", file=sys.stderr)
        return 1
    changed = document.write(args.path)
    print(f"{args.path}: {'updated' if changed else 'already current'}")
    return 0
