"""``tabletop archive [--older-than S] [--game ID]``: move finished games from Redis to
the archive by hand (see ``service.app.archiving``; the sweeper does the same on its own).

Without ``--game`` every game in Redis whose seed was revealed more than ``--older-than``
seconds ago (default ``TABLETOP_ARCHIVE_AFTER_S``) is moved; with it, that game whatever
its age. Prints one line per game and a summary. Exit codes: 0 done, 1 some game
refused (not finished, or failing verification: it stays in Redis), 2 could not run
(bad settings, Redis or the archive unreachable). The archive is
``--archive-url`` or ``TABLETOP_ARCHIVE_URL`` (default: SQLite in the data directory).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from events.archive.store import open_archive
from service.app.archiving import ArchiveMismatch, NotArchivable, archive_game, archive_over
from service.cli.store_options import add_redis_arguments, archive_url, fail, open_store
from service.settings import Settings

CRASH_AT_ENV = "TABLETOP_TEST_ARCHIVE_CRASH_AT"
"""Test hook only: the step name (``service.app.archiving.STEPS``) after which the
process kills itself with SIGKILL -- how the fault tests simulate a crash mid-move."""


def add_parser(sub: Any) -> None:
    p = sub.add_parser("archive", help="move games that are over (finished or expired) from Redis to the archive")
    p.add_argument("--older-than", type=float, metavar="S", help="seconds since the seed reveal or the expiry"
                   " (default: TABLETOP_ARCHIVE_AFTER_S)")
    p.add_argument("--game", metavar="ID", help="archive only this game (whatever its age)")
    p.add_argument("--archive-url", help="the archive (default: TABLETOP_ARCHIVE_URL or SQLite in the data dir)")
    add_redis_arguments(p)
    p.set_defaults(run=run)


def _between(step: str) -> None:
    if os.environ.get(CRASH_AT_ENV) == step:
        os.kill(os.getpid(), signal.SIGKILL)


def run(args: argparse.Namespace) -> int:
    try:
        settings = Settings.from_env()
        # The archive the service of that data directory reads (``up`` passes it its
        # children): another one -- ./.tabletop of wherever this runs -- would take the
        # games out of the service's sight.
        archive = open_archive(args.archive_url or archive_url(args, settings))
    except (ValueError, SQLAlchemyError) as exc:
        fail(f"cannot open the archive: {exc}")
    older = settings.archive_after_s if args.older_than is None else args.older_than
    try:
        with open_store(args) as opened:
            prefix = opened.store.prefix
            if args.game is not None:
                try:
                    done = archive_game(opened.client, archive, prefix, args.game, between=_between)
                except (NotArchivable, ArchiveMismatch, ValueError) as exc:
                    print(f"tabletop archive: {exc}", file=sys.stderr)
                    return 1
                print(f"archived {done.game_id} ({done.version} events)")
                return 0
            moved, refused = archive_over(opened.client, archive, prefix, older, between=_between)
    except SQLAlchemyError as exc:
        fail(f"the archive failed: {exc}")
    finally:
        archive.close()
    for game_id in moved:
        print(f"archived {game_id}")
    for game_id in refused:
        print(f"refused {game_id} (see the log)", file=sys.stderr)
    print(f"archived {len(moved)} game(s), refused {len(refused)}")
    return 1 if refused else 0
