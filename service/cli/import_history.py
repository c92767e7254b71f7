"""``tabletop import FILE``: load an exported, finished history into this server's store.

The file is verified in full first (``tabletop verify``); a tampered, malformed or
unfinished file, or an id already in use, is refused with its code and nothing is
written. The game keeps its id (every hash covers it). After the write the
projection feed is told, so lobby lists and read models pick the game up. Exit
codes: 0 imported, 1 refused (``import refused (<code>): ...`` on stderr), 2 could
not run. ``--json`` prints ``{"ok", "game_id", "game", "version"}`` or
``{"ok": false, "code", "message", "discrepancy"}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from events.audit.importing import Imported, ImportRefused, import_lines
from events.redis_adapter import feed
from service.cli.store_options import Opened, add_redis_arguments, open_store
from service.cli.verify import read_lines


def add_parser(sub: Any) -> None:
    p = sub.add_parser("import", help="import an exported, finished game history")
    p.add_argument("file", metavar="FILE", help="an exported history (- = stdin)")
    p.add_argument("--json", action="store_true", help="print the outcome as JSON")
    add_redis_arguments(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    lines = read_lines(args.file)
    with open_store(args) as opened:
        try:
            imported = import_lines(opened.store, lines)
        except ImportRefused as refused:
            return _refused(refused, args.json)
        _notify(opened, imported)
    if args.json:
        out = {"ok": True, "game_id": imported.game_id, "game": imported.game}
        print(json.dumps({**out, "version": imported.version}, sort_keys=True))
    else:
        print(f"imported game {imported.game_id} ({imported.game}), {imported.version} events")
    return 0


def _refused(refused: ImportRefused, as_json: bool) -> int:
    if as_json:
        found = refused.discrepancy
        out = {"ok": False, "code": refused.code, "message": refused.message}
        print(json.dumps({**out, "discrepancy": found and found.to_json()}, sort_keys=True))
    else:
        print(f"import refused ({refused.code}): {refused.message}", file=sys.stderr)
    return 1


def _notify(opened: Opened, imported: Imported) -> None:
    """Tell the projectors, like every append does (their reconciliation would find it too)."""
    feed.publish(opened.client, opened.store.prefix, imported.game_id, imported.version)
