"""Importing an exported history into a store, as a finished game.

Only what verifies is imported: the file is parsed, must be finished (end with
``SeedRevealed``) and must pass :func:`events.audit.verify.verify_history` in full;
then the store writes it in one atomic step (``RedisEventStore.restore``) under
**its own game id** -- every hash covers the id, so the history cannot move to
another one without being re-sealed, which would make it a different history.
The seed key is written too, so the game is indistinguishable from one played
on this server.

Refusals (:class:`ImportRefused`, nothing written) carry a stable ``code``:

``malformed``    not a stored history (a ``structure`` discrepancy)
``unfinished``   no ``SeedRevealed`` at the end: a running game cannot be imported
``tampered``     the chain, the commitment, a random outcome, the rules or a score fail
``game_exists``  this store already holds a game with that id
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from engine.table import SEED_REVEALED
from events.audit.history import parse_lines
from events.audit.report import STRUCTURE, Discrepancy, Discrepant, Report
from events.audit.verify import verify_history
from events.model.errors import VersionConflict
from events.model.port import AppendResult

MALFORMED = "malformed"
UNFINISHED = "unfinished"
TAMPERED = "tampered"
GAME_EXISTS = "game_exists"


class RestoreTarget(Protocol):
    """Where an import writes: ``events.redis_adapter.store.RedisEventStore`` is one."""

    def restore(
        self, game_id: str, history: Sequence[Mapping[str, Any]], seed: str
    ) -> AppendResult: ...


class ImportRefused(Exception):
    """The history was not imported; nothing was written. ``discrepancy`` is what the
    verification found (None for ``game_exists``)."""

    def __init__(self, code: str, message: str, discrepancy: Discrepancy | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.discrepancy = discrepancy


@dataclass(frozen=True, slots=True)
class Imported:
    """A history now stored: its id, game type, last version and the verification report."""

    game_id: str
    game: str
    version: int
    report: Report


def import_lines(target: RestoreTarget, lines: Iterable[str | bytes]) -> Imported:
    """Parse a JSON Lines export and :func:`import_history` it."""
    try:
        history = parse_lines(lines)
    except Discrepant as found:
        raise _refusal(found.discrepancy) from None
    return import_history(target, history)


def import_history(target: RestoreTarget, history: Sequence[Mapping[str, Any]]) -> Imported:
    """Verify ``history`` (stored dicts) and write it to ``target``; ImportRefused if not."""
    report = verify_history(history)
    if not report.ok:
        assert report.discrepancy is not None
        raise _refusal(report.discrepancy, finished=_ends_with_reveal(history))
    assert report.game_id is not None and report.game is not None
    seed = history[-1]["data"]["seed"]
    try:
        result = target.restore(report.game_id, history, seed)
    except VersionConflict:
        raise ImportRefused(
            GAME_EXISTS, f"a game with id {report.game_id!r} already exists here"
        ) from None
    return Imported(report.game_id, report.game, result.last_version, report)


def _ends_with_reveal(history: Sequence[Any]) -> bool:
    last = history[-1] if history else None
    return isinstance(last, Mapping) and last.get("type") == SEED_REVEALED


def _refusal(found: Discrepancy, finished: bool = True) -> ImportRefused:
    where = f"version {found.version} ({found.kind}): {found.message}"
    if found.kind != STRUCTURE:
        return ImportRefused(TAMPERED, f"the history does not verify at {where}", found)
    if not finished:
        return ImportRefused(UNFINISHED, f"only a finished game can be imported; {where}", found)
    return ImportRefused(MALFORMED, f"not a stored history: {where}", found)
