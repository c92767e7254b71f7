"""Alembic's environment for the archive: runs on the connection the caller passes in
``config.attributes["connection"]`` (``events.archive.store.migrate``)."""

from __future__ import annotations

from alembic import context

from events.archive.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
