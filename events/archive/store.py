"""The archive store: games that are over -- finished, or expired -- in SQL (SQLAlchemy
Core), SQLite by default.

``TABLETOP_ARCHIVE_URL`` names the database: ``sqlite:///<path>`` (default
``sqlite:///<data dir>/archive.sqlite3``, data dir = ``TABLETOP_DATA_DIR`` or
``.tabletop``) or ``postgresql://...`` (driven by psycopg 3). :func:`open_archive`
runs the packaged alembic migrations first (idempotent: an up-to-date database is
left as it is), so every process that opens the archive finds its schema.

Guarantees: :meth:`ArchiveStore.write` stores one game in one transaction (all its
events or nothing) and is idempotent (a game already there is left as it is and
reported so); an archived game never changes, so its head, once read, is cached in
the process for good. Failure modes: ``sqlalchemy.exc.SQLAlchemyError`` when the
database is unreachable or refuses a write.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, func, insert, select

from events.archive.lazy import default_archive_url
from events.archive.schema import events, games
from events.model.port import Head

NO_END = 0
"""``ended_at`` of an expired game (versions start at 1): the columns stay NOT NULL, as
the first schema made them, so no table has to be rebuilt (SQLite cannot drop a NOT
NULL without copying the table, which its foreign key makes unsafe)."""

NONE_TEXT = ""
"""``seed`` and ``report`` of an expired game (a seed is hex, a report JSON: never empty)."""

HEAD_CACHE_SIZE = 100_000
"""Archived heads one process keeps (about 150 bytes each); a miss costs one query."""


@dataclass(frozen=True, slots=True)
class ArchivedGame:
    """Everything every read path needs of one game that is over: finished (its seed
    revealed, its verification report kept), or expired (``GameExpired`` last: no
    ``GameEnded``, and its seed -- never revealed -- is not kept anywhere)."""

    game_id: str
    game_type: str
    version: int
    head_hash: str
    ended_at: int | None  # version of GameEnded; None: the game expired
    seed: str | None  # the revealed seed; None: expired, never revealed
    report: str | None  # the kept verification report; None: expired, nothing to verify
    summary: dict[str, str]
    finished_time: str
    texts: tuple[str, ...]  # the exact stored event texts, versions 1..version

    @property
    def head(self) -> Head:
        return Head(self.version, self.head_hash, self.ended_at)


class ArchiveStore:
    """Reads and writes of the archive. Thread-safe (SQLAlchemy's pool)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._heads: dict[str, Head] = {}
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return self.engine.url.render_as_string(hide_password=True)

    def close(self) -> None:
        self.engine.dispose()

    def head(self, game_id: str) -> Head | None:
        """The archived head of ``game_id`` (None: not archived). Cached once found."""
        cached = self._heads.get(game_id)
        if cached is not None:
            return cached
        query = select(games.c.version, games.c.head_hash, games.c.ended_at).where(games.c.game_id == game_id)
        with self.engine.connect() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        head = Head(int(row.version), str(row.head_hash), _ended(row.ended_at))
        with self._lock:
            if len(self._heads) >= HEAD_CACHE_SIZE:
                self._heads.clear()
            self._heads[game_id] = head
        return head

    def cached_head(self, game_id: str) -> Head | None:
        """The head if this process already knows the game is archived (no query)."""
        return self._heads.get(game_id)

    def texts(self, game_id: str, first: int = 1, last: int | None = None) -> list[str]:
        """The stored texts of versions ``first..last`` (None = to the end), in order."""
        query = select(events.c.text).where(events.c.game_id == game_id, events.c.version >= first)
        if last is not None:
            query = query.where(events.c.version <= last)
        with self.engine.connect() as conn:
            return [str(t) for t in conn.execute(query.order_by(events.c.version)).scalars()]

    def seed(self, game_id: str) -> str | None:
        """The revealed seed (None: not archived, or expired: never revealed)."""
        return self._column(game_id, games.c.seed)

    def report(self, game_id: str) -> str | None:
        """The kept verification report's JSON text (None: not archived, or expired)."""
        return self._column(game_id, games.c.report)

    def _column(self, game_id: str, column: Any) -> str | None:
        with self.engine.connect() as conn:
            value = conn.execute(select(column).where(games.c.game_id == game_id)).scalar()
        return str(value) if value else None  # NONE_TEXT: absent

    def read(self, game_id: str) -> ArchivedGame | None:
        """The whole archived game (None: not archived)."""
        with self.engine.connect() as conn:
            row = conn.execute(select(games).where(games.c.game_id == game_id)).first()
            if row is None:
                return None
            query = select(events.c.text).where(events.c.game_id == game_id).order_by(events.c.version)
            texts = tuple(str(t) for t in conn.execute(query).scalars())
        return ArchivedGame(
            game_id=row.game_id,
            game_type=row.game_type,
            version=int(row.version),
            head_hash=row.head_hash,
            ended_at=_ended(row.ended_at),
            seed=row.seed or None,
            report=row.report or None,
            summary=json.loads(row.summary),
            finished_time=row.finished_time,
            texts=texts,
        )

    def write(self, game: ArchivedGame, archived_at: float) -> bool:
        """Store ``game`` in one transaction; False (nothing written) if it is archived
        already -- the caller compares what is there (:meth:`read`)."""
        row = {
            "game_id": game.game_id,
            "game_type": game.game_type,
            "version": game.version,
            "head_hash": game.head_hash,
            "ended_at": NO_END if game.ended_at is None else game.ended_at,
            "seed": game.seed or NONE_TEXT,
            "report": game.report or NONE_TEXT,
            "summary": json.dumps(game.summary, sort_keys=True),
            "finished_time": game.finished_time,
            "archived_at": archived_at,
        }
        rows = [{"game_id": game.game_id, "version": v, "text": t} for v, t in enumerate(game.texts, 1)]
        with self.engine.begin() as conn:
            exists = conn.execute(select(games.c.game_id).where(games.c.game_id == game.game_id)).first()
            if exists is not None:
                return False
            conn.execute(insert(games), [row])
            for start in range(0, len(rows), 1000):
                conn.execute(insert(events), rows[start : start + 1000])
        return True

    def game_ids(self) -> Iterator[str]:
        """Every archived game's id, in id order."""
        with self.engine.connect() as conn:
            yield from (str(g) for g in conn.execute(select(games.c.game_id).order_by(games.c.game_id)).scalars())

    def count(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(games)).scalar() or 0)


def open_archive(url: str | None = None) -> ArchiveStore:
    """The archive at ``url`` (default :func:`default_archive_url`), migrated to the
    newest schema. A SQLite file's directory is created; ``postgresql://`` URLs use
    psycopg 3."""
    url = url or default_archive_url()
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.split("://", 1)[1]
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, pool_pre_ping=True)
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    migrate(engine)
    return ArchiveStore(engine)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # WAL: readers (API processes) never block on the sweeper's write; a busy timeout
    # instead of "database is locked" when two writers meet; enforced foreign keys.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def migrate(engine: Engine) -> None:
    """Apply the packaged migrations up to the newest (nothing to do when current)."""
    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    with engine.begin() as conn:
        config.attributes["connection"] = conn
        command.upgrade(config, "head")


def texts_equal(a: Sequence[str], b: Sequence[str]) -> bool:
    """Exact equality of two stored histories (length and every text)."""
    return len(a) == len(b) and all(x == y for x, y in zip(a, b, strict=True))


def _ended(stored: Any) -> int | None:
    """The version of GameEnded from its column (:data:`NO_END`: the game expired)."""
    return None if int(stored) == NO_END else int(stored)
