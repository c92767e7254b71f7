"""What a verification found: nothing, or the first discrepancy -- and its two renderings.

Kinds of discrepancy (stable strings, part of the JSON report and the API):

``structure``       the input is not a complete, well-formed stored history (not JSON,
                    a missing field, a redacted export, an unknown event type, ...)
``chain``           the hash chain breaks: an event was edited, dropped or reordered
``commitment``      the revealed seed does not hash to the commitment in ``GameCreated``
``random_outcome``  a die value, shuffle order, dealt or drawn card differs from the
                    one the revealed seed gives (same command, same event type)
``rules``           the rules, re-run over the recorded commands, give other events
                    (or refuse a command, or a table event breaks the lobby rules)
``score``           a recorded score or result differs from the one the rules give
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.model import JSON

STRUCTURE = "structure"
CHAIN = "chain"
COMMITMENT = "commitment"
RANDOM_OUTCOME = "random_outcome"
RULES = "rules"
SCORE = "score"
KINDS = (STRUCTURE, CHAIN, COMMITMENT, RANDOM_OUTCOME, RULES, SCORE)


@dataclass(frozen=True, slots=True)
class Discrepancy:
    """The first thing wrong with a history: at ``version`` (1-based; for input that
    is not even an event, the position of the offending line), of ``kind``."""

    version: int
    kind: str
    message: str

    def to_json(self) -> JSON:
        return {"version": self.version, "kind": self.kind, "message": self.message}


class Discrepant(Exception):
    """Raised inside the verifier to stop at the first discrepancy (never escapes it)."""

    def __init__(self, version: int, kind: str, message: str) -> None:
        super().__init__(f"version {version}: {kind}: {message}")
        self.discrepancy = Discrepancy(version, kind, message)


@dataclass(frozen=True, slots=True)
class Report:
    """The outcome of verifying one history. ``ok`` iff there is no discrepancy;
    ``result`` is the verified ``GameEnded`` data then. ``game_id`` and ``game`` are
    None when the input did not get far enough to name them."""

    game_id: str | None
    game: str | None
    events: int
    commands: int = 0
    discrepancy: Discrepancy | None = None
    result: JSON | None = None

    @property
    def ok(self) -> bool:
        return self.discrepancy is None

    def to_json(self) -> JSON:
        """The machine-readable report (``tabletop verify --json``, the API)."""
        return {
            "ok": self.ok,
            "game_id": self.game_id,
            "game": self.game,
            "events": self.events,
            "commands": self.commands,
            "result": self.result,
            "discrepancy": None if self.discrepancy is None else self.discrepancy.to_json(),
        }


def render_text(report: Report) -> str:
    """The readable report: one headline, then what was checked or what is wrong."""
    name = f"game {report.game_id or '?'} ({report.game or 'unknown game'})"
    head = f"{name}, {report.events} events"
    found = report.discrepancy
    if found is None:
        result = report.result or {}
        return (
            f"{head}: OK\n"
            "  the hash chain holds; the revealed seed matches the commitment;\n"
            f"  every random outcome and the events of all {report.commands} commands re-computed"
            " exactly;\n"
            f"  final scores {result.get('scores')}, winners {result.get('winners')}"
            f" ({result.get('reason')}).\n"
        )
    return f"{head}: FAILED at version {found.version} ({found.kind})\n  {found.message}\n"
