"""Archive databases for tests: a SQLite file, or a PostgreSQL database of the test's own.

PostgreSQL is the machine's (``TABLETOP_TEST_POSTGRES_URL``, default
``postgresql://postgres@127.0.0.1:5432/postgres``, trust auth): a database with a unique
name is created and dropped afterwards. If PostgreSQL is not there the test fails with a
clear message -- it is never skipped (CI and every developer machine have it).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

ADMIN_URL = os.environ.get("TABLETOP_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


@contextmanager
def postgres_database() -> Iterator[str]:
    """The URL of a fresh PostgreSQL database, dropped on exit."""
    import psycopg

    name = f"tt_archive_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=5)
    except psycopg.OperationalError as exc:
        pytest.fail(f"PostgreSQL is needed for the archive tests and is not reachable at {ADMIN_URL}: {exc}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield ADMIN_URL.rsplit("/", 1)[0] + "/" + name
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
