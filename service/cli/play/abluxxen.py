"""Abluxxen's cards in colour: the hand, every row, the display, the pile and discard.

Only what this seat's view holds: its own hand, the other hands' sizes, open sets.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from tabletop_client.types import AbluxxenState, Card, CardSet, View

PALETTE = (
    "bright_red",
    "red",
    "bright_yellow",
    "yellow",
    "bright_green",
    "green",
    "bright_cyan",
    "cyan",
    "bright_blue",
    "blue",
    "bright_magenta",
    "magenta",
    "white",
)
"""A colour per number 1..13, so equal numbers in the hand stand out together."""


def card(value: Card) -> Text:
    if value == "X":
        return Text(" X ", style="bold black on white")
    return Text(f"{value:>2} ", style=f"bold {PALETTE[int(value) - 1]}")


def cards(values: list[Card]) -> Text:
    line = Text()
    for value in values:
        line.append_text(card(value))
    return line if values else Text("-", style="dim")


def card_set(played: CardSet) -> Text:
    """A set as ``3 x 9 +1X`` in the number's colour."""
    number = played["number"]
    text = Text(
        f"{played['count']} x {number}" if number is not None else "",
        style=f"bold {PALETTE[number - 1]}" if number else "",
    )
    if played["jokers"]:
        text.append(f" +{played['jokers']}X", style="bold")
    return text


def table(view: View) -> RenderableType:
    state = view["state"]
    assert state is not None and state["game"] == "abluxxen"
    lines = [
        Text(
            f"round {state['round']}/{state['options'].get('rounds', '?')}  phase {state['phase']}  sets played {state['turn']}"
        )
    ]
    for seat, row in enumerate(state["rows"]):
        lines.append(_seat_line(view, state, seat, row))
    lines.append(Text("display: ").append_text(cards(state["display"])))
    discard = state["discard"][-8:]
    lines.append(
        Text(f"pile: {state['pile_size']} cards   discard ({len(state['discard'])}): ").append_text(
            cards(discard)
        )
    )
    if state["set_in_dispute"] is not None:
        lines.append(
            Text("set in dispute: ")
            .append_text(card_set(state["set_in_dispute"]))
            .append(f"  (seat {state['victim']})")
        )
    if state["owed"]:
        lines.append(Text(f"cards still to draw: {state['owed']}"))
    if state["hand"] is not None:
        lines.append(Text("your hand: ", style="bold").append_text(cards(state["hand"])))
    return Group(*lines)


def _seat_line(view: View, state: AbluxxenState, seat: int, row: list[CardSet]) -> Text:
    name = view["seats"][seat]["name"] or "(free)"
    you = " (you)" if seat == view["you"] else ""
    line = Text(
        f"seat {seat} {name}{you}: {state['hand_sizes'][seat]} in hand, score {state['scores'][seat]}  row: "
    )
    for index, played in enumerate(row):
        line.append_text(card_set(played))
        line.append(" | " if index < len(row) - 1 else "")
    if not row:
        line.append("-", style="dim")
    if state["to_act"] is not None and state["to_act"]["seat"] == seat:
        line.append("  <- to act", style="bold")
    return line
