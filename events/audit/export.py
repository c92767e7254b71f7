"""Exporting a game's history as JSON Lines: one stored envelope per line, in version order.

- **Complete** once the game has ended (a ``GameEnded`` is stored), or for an admin:
  each line is the store's canonical text as-is -- hashes, private parts, commands,
  the revealed seed -- so :func:`events.audit.verify.verify_lines` can check it and
  another server can import it.
- **Redacted** otherwise: each line is the envelope as the caller may see it
  (``events.model.redaction``, through the store's own read path), in its served form
  (``Envelope.to_json``: the stored form plus ``"redacted"``). A seat keeps only the
  private parts shown to it and its own commands; a spectator none. Such an export
  is a faithful record of what the caller saw, but cannot be verified or imported.

A game that ends while a redacted export is read is simply redacted a little too
much (the store decides per read); never the other way round.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from events.model.canonical import canonical_json
from events.model.envelope import Envelope
from events.model.errors import GameNotFound
from events.model.port import Head
from events.model.redaction import Viewer, sees_everything


class HistorySource(Protocol):
    """What an export reads: ``events.redis_adapter.store.RedisEventStore`` is one."""

    def head(self, game_id: str) -> Head: ...

    def read_all(self, game_id: str, viewer: Viewer) -> list[Envelope]: ...

    def stored_texts(self, game_id: str) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class Export:
    """An exported history: ``lines`` without line breaks; ``complete`` as above."""

    game_id: str
    complete: bool
    lines: list[str]

    def text(self) -> str:
        """The JSON Lines document (every line ends with a newline)."""
        return "".join(line + "\n" for line in self.lines)


def export_history(source: HistorySource, game_id: str, viewer: Viewer) -> Export:
    """The history of ``game_id`` as ``viewer`` may take it away (see the module docstring).

    Raises GameNotFound for a game without events, ValueError for an invalid id,
    TypeError for something that is not a viewer.
    """
    head = source.head(game_id)
    if head.version == 0:
        raise GameNotFound(game_id)
    if sees_everything(viewer, head.finished):
        return Export(game_id, True, source.stored_texts(game_id))
    return Export(game_id, False, served_lines(source.read_all(game_id, viewer)))


def served_lines(envelopes: Iterable[Envelope]) -> list[str]:
    """Envelopes (already redacted for their viewer) as canonical JSON lines."""
    return [canonical_json(envelope.to_json()) for envelope in envelopes]
