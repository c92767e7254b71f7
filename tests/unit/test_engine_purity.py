"""The engine is pure: it imports no I/O, no clock and no global random.

Checked on the source (every ``import`` in ``engine/``), so a forbidden import in
a rarely used branch is caught too.
"""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"

FORBIDDEN = {
    # I/O, processes, network, storage
    "os", "io", "sys", "socket", "subprocess", "pathlib", "shutil", "tempfile", "sqlite3",
    "requests", "urllib", "http", "asyncio", "threading", "multiprocessing", "select",
    "redis", "rq", "flask", "marshmallow", "gunicorn", "logging",
    # clocks and global randomness
    "time", "datetime", "random", "secrets", "uuid",
    # the outer layers
    "events", "service", "workers",
}


def imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            roots.add("__import__")
    return roots


def test_engine_imports_nothing_impure() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) > 5
    offenders = {
        str(path.relative_to(ENGINE)): sorted(imported_roots(path) & (FORBIDDEN | {"__import__"}))
        for path in files
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_the_check_itself_catches_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import random\nfrom time import monotonic\nfrom . import fine\n")
    assert imported_roots(bad) & FORBIDDEN == {"random", "time"}
