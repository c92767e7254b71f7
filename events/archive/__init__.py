"""The archive of finished games: a durable SQL store (SQLite or PostgreSQL) that a
finished, verified game moves to out of Redis (``service.app.archiving``), and that the
event reader falls back to (``events.redis_adapter.reader``) when Redis no longer holds a game.

``events.archive.lazy`` imports nothing heavy; ``events.archive.store`` (SQLAlchemy,
alembic) is imported only where an archive is opened.
"""
