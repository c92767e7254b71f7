"""An external bot for tabletop: it plays over HTTP only, as any third party would.

    python examples/http_bot.py --url http://127.0.0.1:8000 --game-id GAME_ID
    python examples/http_bot.py --url http://127.0.0.1:8000 --create schlitzohr --bots 1=greedy

With ``--game-id`` it takes a free seat in that game; with ``--create`` it creates a
game whose other seats are the server's own bots, and takes the free one. Then it
plays until the game is over and prints one JSON line: the game, its seat, the result.

How it works -- the loop every bot needs:

1. Act while it is our turn: ask ``legal`` (who acts, and every command we may
   send), pick one, send it. The client names the version the choice was made on
   (``If-Match``) and makes retries safe (``Idempotency-Key``).
2. Otherwise follow the game's event stream. Each event may have made it our turn,
   so look at ``legal`` again -- but only for events newer than what ``legal``
   already showed us, which skips the rest of a batch in one request.
3. The stream ends after the game's last event; read the final view.

Replace :func:`choose` with your own policy. It gets the legal list and the view
(what this seat may see: its own hand, known colours, ...), and must return one of
the listed commands -- the server accepts exactly those.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

from tabletop_client import RateLimited, Seat, StaleVersion, TabletopClient
from tabletop_client.types import Command, Legal, View


def choose(legal: Legal, view: View, rng: random.Random) -> Command:
    """A simple policy: in Abluxxen, play the set that sheds the most cards; in
    everything else, any legal command at random."""
    plays = [c for c in legal["commands"] if c["kind"] == "play"]
    if plays:
        return max(plays, key=lambda c: (c["count"] + c["jokers"], c["number"] or 0))
    return rng.choice(legal["commands"])


def act(seat: Seat, rng: random.Random) -> None:
    """Send commands as long as this seat must act."""
    while True:
        legal = seat.legal()
        if not legal["commands"]:
            return
        try:
            seat.command(choose(legal, seat.view(), rng))
        except StaleVersion:
            continue  # the game moved on since we looked (a timeout, say): look again
        except RateLimited as limited:
            time.sleep(limited.retry_after)  # too fast for the server: wait as it says


def play(seat: Seat, rng: random.Random) -> View:
    """Play ``seat`` to the end of the game; returns the final view."""
    act(seat, rng)
    for event in seat.stream(after=seat.version):  # ends after the game's last event
        if event["version"] > seat.version:  # not yet seen through legal
            act(seat, rng)
    return seat.view()


def take_seat(client: TabletopClient, args: argparse.Namespace) -> Seat:
    if args.game_id:
        return client.join(args.game_id, args.name)
    bots: dict[int, str] = {}
    for part in filter(None, ",".join(args.bots or []).split(",")):
        seat, _, level = part.partition("=")
        bots[int(seat)] = level
    options: dict[str, Any] = {}
    for part in args.option or []:
        name, _, value = part.partition("=")
        options[name] = int(value) if value.isdigit() else value
    created = client.create_game(args.create, args.players, options=options, bots=bots)
    return client.join(created["game_id"], args.name)


def main() -> None:
    parser = argparse.ArgumentParser(description="A tabletop bot that plays over HTTP.")
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--game-id", help="join this game")
    how.add_argument(
        "--create", choices=["schlitzohr", "abluxxen"], help="create a game against server bots"
    )
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument(
        "--bots", action="append", help="with --create: SEAT=LEVEL,... (default 1=greedy)"
    )
    parser.add_argument("--option", action="append", help="with --create: NAME=VALUE")
    parser.add_argument("--name", default="http-bot")
    parser.add_argument("--seed", type=int, default=None, help="for the random choices")
    args = parser.parse_args()
    if args.create and not args.bots:
        args.bots = ["1=greedy"]

    seat = take_seat(TabletopClient(args.url), args)
    final = play(seat, random.Random(args.seed))
    print(
        json.dumps(
            {
                "game_id": seat.game_id,
                "seat": seat.seat,
                "status": final["status"],
                "result": final["result"],
            }
        )
    )


if __name__ == "__main__":
    main()
