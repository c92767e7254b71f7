"""The legal commands as a numbered menu, in words.

Every legal command is one entry, except Schlitzohr's inspections: the legal list
holds one ``inspect`` per set of ears (up to C(16, 6) of them), so they become one
entry and the player names the ears. Only commands from the server's legal list
are ever offered, so a choice can be refused only if the game moved on meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletop_client.types import Command


@dataclass(frozen=True)
class Choice:
    """One menu entry: a ready command, or (``inspect``) the ear sets to pick from."""

    label: str
    command: Command | None = None
    ear_sets: tuple[tuple[int, ...], ...] = ()

    def command_for_ears(self, ears: list[int]) -> Command | None:
        """The inspect command for ``ears`` (any order) if it is a legal set, else None."""
        chosen = tuple(sorted(ears))
        return {"kind": "inspect", "ears": list(chosen)} if chosen in self.ear_sets else None


def describe(command: Command) -> str:
    """A command in words, e.g. ``move ear 3 to f5``, ``play 2 x 9 + 1 joker``."""
    kind = command.get("kind")
    if kind in ("move", "place"):
        return f"{kind} ear {command['ear']} to {command['to']}"
    if kind == "roll":
        return "roll the die"
    if kind == "joker":
        return "play a joker (inspect ears)"
    if kind == "peek":
        return "peek (roll again and inspect ears)"
    if kind == "play":
        number, count, jokers = command["number"], command["count"], command["jokers"]
        parts = [f"{count} x {number}"] if count else []
        if jokers:
            parts.append(f"{jokers} joker" + ("s" if jokers > 1 else ""))
        return "play " + " + ".join(parts)
    if kind in ("take", "leave"):
        return f"{kind} the set of seat {command['victim']}"
    if kind == "take_back":
        return "take the set back into your hand"
    if kind == "discard":
        return "discard the set"
    if kind == "draw":
        return (
            f"draw {command['card']} from the display"
            if command["from"] == "display"
            else "draw from the pile"
        )
    if kind == "pass":
        return "pass (draw nothing)"
    return str(command)


def menu(commands: list[Command]) -> list[Choice]:
    """The numbered entries for a legal list, in the server's order."""
    choices: list[Choice] = []
    ear_sets = tuple(tuple(c["ears"]) for c in commands if c.get("kind") == "inspect")
    for command in commands:
        if command.get("kind") != "inspect":
            choices.append(Choice(describe(command), command))
    if ear_sets:
        size = len(ear_sets[0])
        choices.append(
            Choice(
                f"inspect {size} ear" + ("s" if size != 1 else "") + " (you pick which)",
                None,
                ear_sets,
            )
        )
    return choices
