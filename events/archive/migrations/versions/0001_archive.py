"""The archive's first schema: archived games and their stored events.

Revision ID: 0001_archive
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001_archive"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "archived_games",
        sa.Column("game_id", sa.String(64), primary_key=True),
        sa.Column("game_type", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("head_hash", sa.String(64), nullable=False),
        sa.Column("ended_at", sa.Integer, nullable=False),
        sa.Column("seed", sa.Text, nullable=False),
        sa.Column("report", sa.Text, nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("finished_time", sa.String(64), nullable=False),
        sa.Column("archived_at", sa.Float, nullable=False),
    )
    op.create_table(
        "archived_events",
        sa.Column("game_id", sa.String(64), sa.ForeignKey("archived_games.game_id"), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("text", sa.Text, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("archived_events")
    op.drop_table("archived_games")
