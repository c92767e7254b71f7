"""``tabletop play``: play a game from the terminal, against bots or other people.

Built on :mod:`tabletop_client` only: it talks to a server over HTTP like any
third-party client, and imports nothing of the server.
"""

from __future__ import annotations

import argparse
from typing import Any

import requests
from rich.console import Console
from rich.markup import escape

from service.cli.play.loop import Player
from service.cli.play.setup import DEFAULT_TOKEN_FILE, DEFAULT_URL, take_seat
from tabletop_client import TabletopError


def add_parser(sub: Any) -> None:
    parser = sub.add_parser(
        "play",
        help="play a game from the terminal (create, join or resume)",
        description=__doc__.splitlines()[0],
        epilog="examples: tabletop play --game schlitzohr --players 2 --bots 1=greedy; "
        "tabletop play --join GAME_ID --name bob; tabletop play --resume; tabletop play --rematch",
    )
    parser.add_argument(
        "--url", default=None, help=f"the server (default $TABLETOP_URL or {DEFAULT_URL})"
    )
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--join", metavar="GAME_ID", help="take a seat in this game")
    how.add_argument(
        "--resume", action="store_true", help="play on with the seat in the token file"
    )
    how.add_argument(
        "--rematch",
        action="store_true",
        help="play the finished game in the token file again: its rematch, in the same seat",
    )
    parser.add_argument("--game", default="schlitzohr", choices=["schlitzohr", "abluxxen"])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument(
        "--bots",
        action="append",
        metavar="SEAT=LEVEL",
        help="bot seats, e.g. 1=greedy or 1=greedy,2=random",
    )
    parser.add_argument(
        "--option",
        action="append",
        metavar="NAME=VALUE",
        help="a game option, e.g. turn_cap=10 (repeatable)",
    )
    parser.add_argument("--name", default="player", help="your name at the table")
    parser.add_argument(
        "--seat", type=int, default=None, help="the seat to take (default: the lowest free)"
    )
    parser.add_argument(
        "--token-file",
        default=None,
        help=f"where the seat token is kept (default {DEFAULT_TOKEN_FILE}, mode 0600)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    console = Console(highlight=False)
    try:
        seat = take_seat(args)
        console.print(f"Game [bold]{seat.game_id}[/], you are seat {seat.seat}.")
        return Player(seat, console).run()
    except KeyboardInterrupt:
        console.print("\nStopped; your seat is kept: [bold]tabletop play --resume[/]")
        return 130
    except TabletopError as error:
        console.print(f"[bold red]The server refused:[/] {error.code}: {escape(error.detail)}")
        return 1
    except requests.RequestException as error:  # before OSError: it is one
        console.print(
            f"[bold red]Lost the server[/] ({escape(str(error))}). "
            "Play on later: [bold]tabletop play --resume[/]"
        )
        return 1
    except (OSError, ValueError, argparse.ArgumentTypeError) as error:
        console.print(f"[bold red]Cannot start:[/] {escape(str(error))}")
        return 2
