"""What ``tabletop play`` prints: the game drawn, one line per event, the result.

Everything printed comes from this seat's view and its events as the server sent
them -- redacted for the seat -- so the terminal never shows a hidden fact.
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.rule import Rule
from rich.text import Text

from service.cli.play import abluxxen, schlitzohr
from tabletop_client.types import Envelope, View


def log(console: Console, event: Envelope) -> None:
    """One line per event, as this seat may see it (its own hidden facts in brackets)."""
    actor = event["actor"]
    who = f"seat {actor['seat']}" if "seat" in actor else "table"
    data = ", ".join(f"{k}={v}" for k, v in event["data"].items())
    private = event["private"]
    if private:
        data += "  (" + ", ".join(f"{k}={v}" for k, v in private.items()) + ")"
    console.print(Text(f"  v{event['version']} {who}: {event['type']} {data}", style="dim"))


def show(console: Console, view: View) -> None:
    """The game drawn as the view holds it."""
    console.print(
        Rule(f"{view['game']} {view['game_id']}  version {view['version']}  {view['status']}")
    )
    if view["state"] is None:
        for seat in view["seats"]:
            console.print(Text(f"seat {seat['seat']}: {seat['name'] or '(free)'}"))
    elif view["game"] == "schlitzohr":
        console.print(schlitzohr.board(view))
    else:
        console.print(abluxxen.table(view))


def show_end(console: Console, view: View) -> None:
    """The result, and whether this seat won."""
    result = view["result"]
    if result is None:
        console.print("[bold]The game expired before it started.[/]")
        return
    you = view["you"]
    scores = "  ".join(f"seat {s}: {p}" for s, p in enumerate(result["scores"]))
    verdict = "You won!" if you in result["winners"] else "You lost."
    console.print(
        f"[bold]Game over[/] ({escape(result['reason'])}). Scores: {scores}. [bold]{verdict}[/]"
    )
