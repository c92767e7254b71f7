"""What ``tabletop up`` leaves in its data directory for the operator's other commands.

- ``<data-dir>/service.json``: where the running service is -- ``redis_url`` (the
  embedded Redis, or the one ``REDIS_URL``/``TABLETOP_REDIS_URL`` named), ``api_url``,
  ``pid`` of ``up`` and ``started_at``. Written (atomically, mode 0600: a Redis URL
  may hold a password) once Redis answers; kept after ``up`` stops, so a command run
  later fails on the recorded Redis ("is tabletop up running?") instead of silently
  talking to another server on 6379.
- ``<data-dir>/admin-token``: the admin token, mode 0600, made on the first ``up`` and
  reused by the next ones (unless ``TABLETOP_ADMIN_TOKEN`` names a token: then no file).

Which Redis an operator command uses (:func:`resolve_redis_url`), first match wins:
``--redis-url``, ``TABLETOP_REDIS_URL``, ``REDIS_URL``, ``<data-dir>/service.json``
(``--data-dir``, default ``.tabletop``), then ``redis://127.0.0.1:6379/0``.

The data directory itself is made with mode 0700 (the AOF in it holds every game's
secrets); an existing directory keeps its mode.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

DEFAULT_DATA_DIR = ".tabletop"
SERVICE_FILE = "service.json"
TOKEN_FILE = "admin-token"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
TOKEN_ENV = "TABLETOP_ADMIN_TOKEN"


def prepare(data_dir: Path) -> Path:
    """``data_dir`` resolved, created (mode 0700) if missing."""
    path = data_dir.resolve()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    return path


def _write_private(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` with mode 0600, atomically (temp file + rename)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def write_record(data_dir: Path, *, redis_url: str, api_url: str) -> Path:
    """Record where the service runs (see the module docstring); returns the file's path."""
    path = data_dir / SERVICE_FILE
    record = {
        "redis_url": redis_url,
        "api_url": api_url,
        "pid": os.getpid(),
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    _write_private(path, json.dumps(record, indent=2) + "\n")
    return path


def read_record(data_dir: Path) -> dict[str, Any] | None:
    """The record of ``data_dir``, or None if there is none (or it is unreadable)."""
    try:
        record = json.loads((data_dir / SERVICE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


@dataclass(frozen=True, slots=True)
class Resolved:
    """A URL and where it came from (for messages: "recorded by tabletop up in ...")."""

    url: str
    source: str


def resolve_redis_url(
    explicit: str | None, data_dir: str | Path | None, env: Mapping[str, str] = os.environ
) -> Resolved:
    """The Redis an operator command uses; the precedence is in the module docstring."""
    if explicit:
        return Resolved(explicit, "--redis-url")
    for name in ("TABLETOP_REDIS_URL", "REDIS_URL"):
        if env.get(name):
            return Resolved(env[name], name)
    directory = Path(data_dir or DEFAULT_DATA_DIR)
    record = read_record(directory)
    if record and isinstance(record.get("redis_url"), str):
        source = f"recorded by tabletop up in {directory / SERVICE_FILE}"
        return Resolved(record["redis_url"], source)
    return Resolved(DEFAULT_REDIS_URL, "default")


def resolve_api_url(explicit: str | None, data_dir: str | Path | None) -> str:
    """``--url``, else the API URL ``up`` recorded, else ``http://127.0.0.1:8000``."""
    if explicit:
        return explicit
    record = read_record(Path(data_dir or DEFAULT_DATA_DIR))
    if record and isinstance(record.get("api_url"), str):
        return str(record["api_url"])
    return "http://127.0.0.1:8000"


def admin_token(data_dir: Path, env: Mapping[str, str]) -> tuple[str, Path | None]:
    """The admin token for ``up``, and the file it is in (None: it came from the environment).

    ``TABLETOP_ADMIN_TOKEN`` wins; else ``<data-dir>/admin-token`` is reused (its mode
    forced back to 0600) or made with a fresh random token.
    """
    if env.get(TOKEN_ENV):
        return env[TOKEN_ENV], None
    path = data_dir / TOKEN_FILE
    try:
        token = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        token = ""
    if token:
        os.chmod(path, 0o600)
        return token, path
    token = secrets.token_urlsafe(24)
    _write_private(path, token + "\n")
    return token, path
