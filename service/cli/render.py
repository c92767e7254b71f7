"""Drawing a replayed table in the terminal with rich: the Schlitzohr board, the Abluxxen table.

Everything is drawn from a *view* (``events.audit.replay.view_of``), never from the
engine state, so a drawing shows exactly what its viewer may see: a seat's
inspected colours, its own hand; a spectator neither.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from engine.model import JSON
from events.model.envelope import Envelope

STYLES = {"red": "bold red", "blue": "bold blue", "green": "bold green", "yellow": "bold yellow"}


def render(view: JSON, envelope: Envelope, last_version: int) -> RenderableType:
    """The header (version, event, seats, commitment) and the game's own drawing."""
    state = view["state"]
    parts: list[RenderableType] = [_header(view, envelope, last_version)]
    if state is None:
        parts.append(Text("(the game is being set up)", style="dim"))
    elif view["game"] == "schlitzohr":
        parts += [schlitzohr_board(state), schlitzohr_status(state, view)]
    elif view["game"] == "abluxxen":
        parts.append(abluxxen_table(state, view))
    return Group(*parts)


def _header(view: JSON, envelope: Envelope, last_version: int) -> Text:
    actor = envelope.actor
    by = "system" if actor.get("kind") == "system" else f"{actor.get('kind')} {actor.get('seat')}"
    text = Text()
    text.append(
        f"{view['game']}  version {view['version']}/{last_version}  {view['status']}\n", "bold"
    )
    text.append(f"event: {envelope.type} by {by}  {_compact(envelope.data)}\n")
    if envelope.command is not None:
        text.append(f"command: {_compact(envelope.command)}\n")
    text.append(f"commitment: {view['commitment']}\n", "dim")
    if view["seed"]:
        text.append(f"seed: {view['seed']}\n", "dim")
    return text


def schlitzohr_board(state: JSON) -> Text:
    """The board, north at the top. An ear is its id, after the initial of its colour if
    the viewer knows it: upper case when face up on a target (``R 7``), lower case
    otherwise (inspected, or every colour once the game is over: ``r 7``). Empty targets
    show their colour's initial, ``##`` is blocked, ``.`` grey. Colours are drawn too
    when the terminal has them."""
    board = state["board"]
    files, ranks = board["files"], board["ranks"]
    target = {f: colour for colour, fields in board["targets"].items() for f in fields}
    blocked = set(board["blocked"])
    ears = {ear["field"]: ear for ear in board["ears"]}
    known = state["known_colours"]
    text = Text()
    for rank in range(ranks, 0, -1):
        text.append(f"{rank:>2} ")
        for file in range(files):
            name = f"{chr(ord('a') + file)}{rank}"
            text.append(*_cell(ears.get(name), known, target.get(name), name in blocked))
        text.append("\n")
    text.append("   " + "".join(f"   {chr(ord('a') + f)}" for f in range(files)) + "\n")
    return text


def _cell(ear: JSON | None, known: list[Any], colour: str | None, blocked: bool) -> tuple[str, str]:
    """One field, four characters wide, and its style."""
    if ear is not None:
        seen = known[ear["id"]]
        if not seen:
            return f"  {ear['id']:>2}", "white"
        face_up = colour is not None  # an ear on a target stands face up
        initial = seen[0].upper() if face_up else seen[0]
        return f" {initial}{ear['id']:>2}", STYLES[seen] + (" reverse" if face_up else "")
    if blocked:
        return "  ##", "dim"
    if colour is not None:
        return f"   {colour[0]}", STYLES[colour].replace("bold ", "")
    return "   .", "dim"


def schlitzohr_status(state: JSON, view: JSON) -> Text:
    text = Text()
    for seat, colour in enumerate(state["seat_colours"]):
        text.append(f"seat {seat} ", "bold" if seat == state["active_seat"] else "")
        text.append(colour, STYLES.get(colour, ""))
        name = view["seats"][seat]["name"] or "(free)"
        text.append(
            f"  {name}  score {state['scores'][seat]}  jokers {state['jokers_left'][seat]}"
            f"  inspected {len(state['inspected'][seat])}\n"
        )
    roll = state["last_roll"]
    text.append(
        f"turn {state['turn']}  phase {state['phase']}  pips {state['pips_left']}"
        f"  last roll {roll['value'] if roll else '-'}\n"
    )
    if state["result"]:
        text.append(f"result: {_compact(state['result'])}\n", "bold")
    return text


def abluxxen_table(state: JSON, view: JSON) -> RenderableType:
    """Seats with their rows of sets and hand sizes (and the viewer's hand), then the
    display, pile, discard and whose move it is."""
    table = Table(show_edge=False, pad_edge=False)
    for column in ("seat", "name", "hand", "row (oldest first)", "score"):
        table.add_column(column)
    hands = state.get("hands")
    for seat, row in enumerate(state["rows"]):
        hand = str(state["hand_sizes"][seat])
        if hands is not None or seat == state["seat"]:
            cards = hands[seat] if hands is not None else state["hand"]
            hand += " " + " ".join(str(card) for card in cards)
        name = view["seats"][seat]["name"] or "(free)"
        sets = "  ".join(_set(played) for played in row)
        table.add_row(str(seat), name, hand, sets, str(state["scores"][seat]))
    return Group(table, _abluxxen_status(state))


def _abluxxen_status(state: JSON) -> Text:
    text = Text()
    text.append(f"display: {' '.join(str(c) for c in state['display'])}")
    text.append(f"   pile {state['pile_size']}   discard {len(state['discard'])}\n")
    acting = state["to_act"]
    who = f"seat {acting['seat']} ({', '.join(acting['kinds'])})" if acting else "nobody"
    text.append(
        f"round {state['round']}  turn {state['turn']}  phase {state['phase']}  to act: {who}\n"
    )
    if state["set_in_dispute"]:
        text.append(f"victim {state['victim']}: {_set(state['set_in_dispute'])} in dispute\n")
    if state["result"]:
        text.append(f"result: {_compact(state['result'])}\n", "bold")
    return text


def _set(played: JSON) -> str:
    """``7x2+X`` = two 7s and a joker; ``Xx2`` = two jokers alone."""
    jokers = int(played["jokers"])
    if played["number"] is None:
        return f"Xx{jokers}"
    return f"{played['number']}x{played['count']}" + "+X" * jokers


def _compact(data: Any, limit: int = 160) -> str:
    """``data`` on one line, at most ``limit`` characters."""
    text = _flat(data)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _flat(data: Any) -> str:
    if isinstance(data, dict):
        return " ".join(f"{k}={_flat(v)}" for k, v in data.items())
    if isinstance(data, list):
        return "[" + ",".join(_flat(v) for v in data) + "]"
    return str(data)
