"""The code passes the project's static checks, run as a developer runs them.

- mypy, with ``pyproject.toml``'s configuration, over every package and the benches: type
  hints are part of the code's contract, and a hint that drifted from the code fails here
  rather than misleading a reader (about 10 s cold on the 2-core bench machine). The
  benches count: their figures are what issue #16 is judged by;
- ruff, under the rules ``[tool.ruff.lint]`` selects (pycodestyle's errors and invalid
  escapes, pyflakes, import order, bugbear, pyupgrade, blind excepts, stale markers), over
  the whole tree: packages, tests, benches (under a second);
- no docstring holds a lone surrogate (an escape such as ``\\ud800`` in a docstring that is
  not raw): CPython 3.13.0 cleans docstrings through UTF-8 and cannot compile such a
  module, so ``service.http`` failed to import there while ``requires-python`` admits it.
  CI runs 3.11 only; this catches that failure on any interpreter.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ["engine", "events", "service", "workers", "tabletop_client", "bench"]
SOURCES = [*CHECKED, "tests", "examples"]


def _run_module(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m <args>`` in the project's root, its output captured."""
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_packages_and_benches_type_check(tmp_path: Path) -> None:
    result = _run_module("mypy", "--cache-dir", str(tmp_path / "cache"), *CHECKED)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_tree_passes_ruff() -> None:
    result = _run_module("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def _docstrings(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """(line, text) of every module, class and function docstring in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text is not None:
                yield node.body[0].lineno, text


def _surrogates_in_docstrings(source: str, name: str) -> list[str]:
    """``name:line`` of each docstring in ``source`` that holds a lone surrogate."""
    return [
        f"{name}:{line}"
        for line, text in _docstrings(ast.parse(source, name))
        if any("\ud800" <= char <= "\udfff" for char in text)
    ]


def test_the_surrogate_check_finds_an_escaped_surrogate() -> None:
    source = 'def f() -> None:\n    """Refuses ``\\ud800``."""\n'
    assert _surrogates_in_docstrings(source, "sample.py") == ["sample.py:2"]
    assert _surrogates_in_docstrings(source.replace('"""R', 'r"""R'), "sample.py") == []


def test_no_docstring_holds_a_lone_surrogate() -> None:
    files = [ROOT / "run.py"] + [p for top in SOURCES for p in sorted((ROOT / top).rglob("*.py"))]
    found = [
        hit
        for path in files
        for hit in _surrogates_in_docstrings(
            path.read_text(encoding="utf-8"), str(path.relative_to(ROOT))
        )
    ]
    assert found == [], found
