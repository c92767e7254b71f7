"""``tabletop sweeper``: re-enqueue bot turns that stalled, expire open games that never
started (see ``workers/sweeper.py``)."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from types import FrameType
from typing import Any

from service.bootstrap import build
from service.runner import liveness
from workers.sweeper import run as sweep_forever


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "sweeper",
        help="re-enqueue bot turns that waited longer than TABLETOP_BOT_STALL_S; expire games"
        " still open after TABLETOP_OPEN_GAME_TTL_S",
    )
    p.add_argument("--log-level", default="INFO")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s sweeper %(levelname)s %(message)s"
    )
    stop = threading.Event()

    def request_stop(signum: int, frame: FrameType | None) -> None:
        stop.set()

    try:
        svc = build()
    except ValueError as exc:  # bad settings, e.g. a cluster store without a queue Redis
        print(f"tabletop sweeper: {exc}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    liveness.start_beating()  # under `up`: its watchdog restarts a sweeper that stops running
    sweep_forever(svc, stop)
    return 0
