"""The archive's tables (SQLAlchemy Core). Changed only together with a new migration
under ``events/archive/migrations/versions``."""

from __future__ import annotations

from sqlalchemy import Column, Float, ForeignKey, Integer, MetaData, String, Table, Text

metadata = MetaData()

games = Table(
    "archived_games",
    metadata,
    Column("game_id", String(64), primary_key=True),
    Column("game_type", String(64), nullable=False),
    Column("version", Integer, nullable=False),  # head version (SeedRevealed, or GameExpired)
    Column("head_hash", String(64), nullable=False),
    # An expired game (no GameEnded, seed never revealed): 0, "" and "" (events.archive.store).
    Column("ended_at", Integer, nullable=False),  # version of GameEnded
    Column("seed", Text, nullable=False),  # the revealed secret seed (hex)
    Column("report", Text, nullable=False),  # the kept verification report (JSON text)
    Column("summary", Text, nullable=False),  # the lobby summary hash as JSON (listings, totals)
    Column("finished_time", String(64), nullable=False),  # time of the last event
    Column("archived_at", Float, nullable=False),  # Unix time of the move
)

events = Table(
    "archived_events",
    metadata,
    Column("game_id", String(64), ForeignKey("archived_games.game_id"), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("text", Text, nullable=False),  # the exact stored canonical JSON (seal 1 or 2)
)
