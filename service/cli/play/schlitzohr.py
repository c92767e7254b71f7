"""The Schlitzohr board in colour: 9 x 9 fields, ears by id, targets and blocked fields.

What a cell shows is only what this seat's view holds: a face-up ear in its colour
(reversed), an ear whose colour this seat saw when inspecting in that colour with a
``?``, any other ear plain. Rank 9 is at the top, file ``a`` on the left.
"""

from __future__ import annotations

from rich.console import Group, RenderableType
from rich.text import Text

from tabletop_client.types import SchlitzohrState, View

STYLE = {"red": "red", "blue": "blue", "green": "green", "yellow": "yellow"}


def _cell(
    state: SchlitzohrState, field: str, ears: dict[str, int], target_of: dict[str, str]
) -> Text:
    board = state["board"]
    if field in ears:
        ear = ears[field]
        face_up = next(e["colour"] for e in board["ears"] if e["id"] == ear)
        known = state["known_colours"][ear]
        if face_up is not None:
            return Text(f"{ear:>2} ", style=f"bold reverse {STYLE[face_up]}")
        if known is not None:
            return Text(f"{ear:>2}?", style=f"bold {STYLE[known]}")
        return Text(f"{ear:>2} ", style="bold white")
    if field in board["blocked"]:
        return Text("## ", style="dim")
    if field in target_of:
        return Text(" o ", style=STYLE[target_of[field]])
    return Text(" . ", style="dim")


def board(view: View) -> RenderableType:
    """The board, a legend and the state of play."""
    state = view["state"]
    assert state is not None and state["game"] == "schlitzohr"
    files, ranks = state["board"]["files"], state["board"]["ranks"]
    ears = {e["field"]: e["id"] for e in state["board"]["ears"]}
    target_of = {f: colour for colour, fields in state["board"]["targets"].items() for f in fields}
    lines = []
    for rank in range(ranks, 0, -1):
        line = Text(f"{rank:>2} ")
        for file in range(files):
            line.append_text(_cell(state, f"{chr(ord('a') + file)}{rank}", ears, target_of))
        lines.append(line)
    lines.append(Text("   " + "".join(f" {chr(ord('a') + f)} " for f in range(files))))
    return Group(*lines, *_status(view, state))


def _status(view: View, state: SchlitzohrState) -> list[Text]:
    out = []
    for seat, colour in enumerate(state["seat_colours"]):
        name = view["seats"][seat]["name"] or "(free)"
        you = " (you)" if seat == view["you"] else ""
        line = Text(f"seat {seat} {name}{you}: ")
        line.append(colour, style=f"bold {STYLE[colour]}")
        line.append(f"  score {state['scores'][seat]}  jokers {state['jokers_left'][seat]}")
        if seat == state["active_seat"]:
            line.append("  <- to act", style="bold")
        out.append(line)
    roll = state["last_roll"]
    rolled = f"  last roll {roll['value']} ({roll['purpose']})" if roll else ""
    out.append(
        Text(
            f"turn {state['turn']}/{state['options'].get('turn_cap', '?')}  phase {state['phase']}{rolled}"
            + (f"  pips left {state['pips_left']}" if state["phase"] == "moving" else "")
            + (f"  inspect {state['inspect_count']}" if state["phase"] == "inspect" else "")
        )
    )
    out.append(
        Text(
            "legend: 12 = ear 12, reversed = face up, 12? = a colour you saw, o = target, ## = blocked",
            style="dim",
        )
    )
    return out
