"""The archive as the event reader holds it: opened on first use, SQLAlchemy imported
only then (a process serving live games only never loads it)."""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from events.model.errors import ArchiveUnavailable
from events.model.port import Head

if TYPE_CHECKING:
    from events.archive.store import ArchivedGame, ArchiveStore


def default_archive_url(environ: Any = None) -> str:
    """``TABLETOP_ARCHIVE_URL``, else a SQLite file in the data directory."""
    env = os.environ if environ is None else environ
    url = env.get("TABLETOP_ARCHIVE_URL")
    if url:
        return str(url)
    data_dir = Path(env.get("TABLETOP_DATA_DIR") or ".tabletop").absolute()
    return f"sqlite:///{data_dir / 'archive.sqlite3'}"


class LazyArchive:
    """An :class:`ArchiveStore` opened on first use, with the same read methods.

    Reads never create anything: while a SQLite archive file does not exist, no game is
    archived, and every read answers "not archived" without touching the disk again
    until :meth:`store` (the mover) creates it. So a process that only serves live games
    never opens a database. Thread-safe.
    """

    def __init__(self, url: str | None = None) -> None:
        self.url = url or default_archive_url()
        self._store: ArchiveStore | None = None
        self._lock = threading.Lock()

    def _sqlite_path(self) -> Path | None:
        if self.url.startswith("sqlite:///"):
            return Path(self.url.removeprefix("sqlite:///"))
        return None

    def store(self) -> ArchiveStore:
        """The archive, opened (and created and migrated) now if need be."""
        with self._lock:
            if self._store is None:
                from events.archive.store import open_archive

                self._store = open_archive(self.url)
            return self._store

    def _existing(self) -> ArchiveStore | None:
        if self._store is not None:
            return self._store
        path = self._sqlite_path()
        if path is not None and not path.exists():
            return None
        return self.store()

    def _read(self, method: str, *args: Any) -> Any:
        """``ArchiveStore.<method>(*args)``, None when no archive exists; database errors
        become :class:`~events.model.errors.ArchiveUnavailable` (the HTTP layer's 503)."""
        try:
            store = self._existing()
            return None if store is None else getattr(store, method)(*args)
        except Exception as exc:
            from sqlalchemy.exc import SQLAlchemyError

            if isinstance(exc, SQLAlchemyError):
                raise ArchiveUnavailable(f"the archive at {self.url} failed: {exc}") from exc
            raise

    def cached_head(self, game_id: str) -> Head | None:
        return self._store.cached_head(game_id) if self._store is not None else None

    def head(self, game_id: str) -> Head | None:
        return self._read("head", game_id)  # type: ignore[no-any-return]

    def texts(self, game_id: str, first: int = 1, last: int | None = None) -> list[str]:
        return self._read("texts", game_id, first, last) or []

    def seed(self, game_id: str) -> str | None:
        return self._read("seed", game_id)  # type: ignore[no-any-return]

    def report(self, game_id: str) -> str | None:
        return self._read("report", game_id)  # type: ignore[no-any-return]

    def read(self, game_id: str) -> ArchivedGame | None:
        return self._read("read", game_id)  # type: ignore[no-any-return]

    def game_ids(self) -> Iterator[str]:
        store = self._existing()
        return store.game_ids() if store is not None else iter(())

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None
