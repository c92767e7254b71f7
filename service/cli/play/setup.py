"""How ``tabletop play`` gets its seat: create a game and join it, join a given game,
resume a seat saved in a token file, or take that seat again in its finished game's
rematch.

The seat token is shown by the server only once, so it is written to the token
file (mode 0600) right after joining, before anything else can fail.
"""

from __future__ import annotations

import argparse
import os

from tabletop_client import Seat, TabletopClient

DEFAULT_URL = "http://127.0.0.1:8000"
DEFAULT_TOKEN_FILE = os.path.join("~", ".tabletop", "play.json")


def token_file(args: argparse.Namespace) -> str:
    return os.path.expanduser(args.token_file or DEFAULT_TOKEN_FILE)


def parse_bots(values: list[str] | None) -> dict[int, str]:
    """``["1=greedy,2=random"]`` or ``["1=greedy", "2=random"]`` -> ``{1: "greedy", 2: "random"}``."""
    bots: dict[int, str] = {}
    for value in values or []:
        for part in filter(None, value.split(",")):
            seat, sep, level = part.partition("=")
            if not sep or not seat.strip().isdigit():
                raise argparse.ArgumentTypeError(f"--bots wants SEAT=LEVEL, not {part!r}")
            bots[int(seat)] = level.strip()
    return bots


def parse_options(values: list[str] | None) -> dict[str, int | bool | str]:
    """``["turn_cap=10", "joker_six_returns=false"]`` -> typed option values."""
    options: dict[str, int | bool | str] = {}
    for value in values or []:
        name, sep, raw = value.partition("=")
        if not sep:
            raise argparse.ArgumentTypeError(f"--option wants NAME=VALUE, not {value!r}")
        lowered = raw.strip().lower()
        options[name.strip()] = (
            lowered == "true"
            if lowered in ("true", "false")
            else int(raw)
            if raw.strip().lstrip("-").isdigit()
            else raw
        )
    return options


def take_seat(args: argparse.Namespace) -> Seat:
    """The seat to play, per the arguments (see ``tabletop play --help``).

    Raises ``TabletopError`` (refused by the server), ``requests.RequestException``
    (no server), ``OSError``/``ValueError`` (no readable token file to resume)."""
    path = token_file(args)
    if args.resume or args.rematch:
        seat = Seat.load(path)
        if args.url:
            seat.client = TabletopClient(args.url)
        if not args.rematch:
            return seat
        seat = seat.rematch()  # the other players' own --rematch (or page) seats them there
        seat.save(path)
        return seat
    client = TabletopClient(args.url or os.environ.get("TABLETOP_URL") or DEFAULT_URL)
    game_id = args.join
    if game_id is None:
        created = client.create_game(
            args.game, args.players, options=parse_options(args.option), bots=parse_bots(args.bots)
        )
        game_id = created["game_id"]
    seat = client.join(game_id, args.name, seat=args.seat)
    seat.save(path)
    return seat
