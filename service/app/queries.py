"""Reads: views, legal commands, event histories -- always as the caller may see them.

Every answer passes through the caller's redaction: ``game.view(state, seat)``
for views, ``events.model.redaction`` (inside the store's reads) for events. A view is
never older than the newest version the caller's own command produced: views are
folded from the store's head (``TableRepository.load``), not from a lagging cache.
"""

from __future__ import annotations

from typing import Any

from engine.errors import RuleViolation
from engine.model import JSON
from engine.registry import get_game
from engine.table import Table, evolve_table
from events.model.redaction import ADMIN, SPECTATOR, Viewer
from service.app import documents
from service.app.tables import TableRepository

MAX_EVENTS_PAGE = 1000
"""Most events one history page holds."""


class Queries:
    """Read-side use cases. Thread-safe."""

    def __init__(self, tables: TableRepository) -> None:
        self.tables = tables
        self.store = tables.store

    def view(
        self, game_id: str, seat: int | None, at: int | None = None, table: Table | None = None
    ) -> JSON:
        """The view of ``seat`` (None = spectator), now or at version ``at``. ``table``: the
        game's table as loaded at its head earlier in the same request (the token check
        does: ``Application.seat_and_table``), so that a read costs one load, not two."""
        table = table or self.tables.load(game_id)
        if at is not None:
            table = self.table_at(game_id, at, table.version)
        return documents.view_document(game_id, table, seat)

    def table_at(self, game_id: str, version: int, head: int) -> Any:
        """The table right after ``version`` (a full fold of the history up to it)."""
        if not 1 <= version <= head:
            raise RuleViolation("version_out_of_range", f"version must be between 1 and {head}", {"head": head})
        game = get_game(self.tables.load(game_id).game)
        table = None
        for envelope in self.store.read_range(game_id, ADMIN, 1, version):
            table = evolve_table(game, table, envelope.to_event(), envelope.version, envelope.time)
        return table

    def legal(
        self, game_id: str, seat: int | None, compact: bool = False, table: Table | None = None
    ) -> JSON:
        """Who must act and, for a seat, every command it may send now: enumerated, or
        with ``compact`` each k-of-n pick as one choice (``engine.choices``), from the
        same table load (``table``: as for :meth:`view`)."""
        table = table or self.tables.load(game_id)
        game = get_game(table.game)
        running = table.status == "running"
        to_act = game.to_act(table.state) if running else {}
        listing = game.legal_choices if compact else game.legal_commands
        commands = listing(table.state, seat) if running and seat is not None else []
        return {
            "game_id": game_id,
            "version": table.version,
            "status": table.status,
            "you": seat,
            "to_act": {str(s): list(k) for s, k in sorted(to_act.items())},
            "commands": commands,
        }

    def history(self, game_id: str, viewer: Viewer, after: int = 0, limit: int = 100) -> JSON:
        """Events after version ``after`` (at most ``limit``) as ``viewer`` may see them."""
        self.tables.load(game_id)  # GameNotFound for an unknown id
        limit = max(1, min(limit, MAX_EVENTS_PAGE))
        envelopes = self.store.read_range(game_id, viewer, after + 1, after + limit)
        head = self.store.head(game_id).version
        items = [e.to_json() for e in envelopes]
        return {
            "game_id": game_id,
            "head": head,
            "events": items,
            "next_after": items[-1]["version"] if items and items[-1]["version"] < head else None,
        }

    def wait_for(self, game_id: str, newer_than: int, timeout_s: float) -> int:
        """Block until the game's version exceeds ``newer_than`` or ``timeout_s`` passes;
        returns the version then (a long poll on the stream, XREAD BLOCK)."""
        head = self.store.head(game_id).version
        if head > newer_than or timeout_s <= 0:
            return head
        self.store.tail(game_id, newer_than, SPECTATOR, block_ms=int(timeout_s * 1000), count=1)
        return self.store.head(game_id).version
