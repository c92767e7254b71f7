"""The code passes the project's static checks, run as a developer runs them.

- mypy, with ``pyproject.toml``'s configuration, over every package and the benches: type
  hints are part of the code's contract, and a hint that drifted from the code fails here
  rather than misleading a reader (about 10 s cold on the 2-core bench machine). The
  benches count: their figures are what issue #16 is judged by;
- ruff, under the rules ``[tool.ruff.lint]`` selects (pycodestyle's errors, pyflakes,
  import order, bugbear), over the whole tree: packages, tests, benches (under a second).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHECKED = ["engine", "events", "service", "workers", "tabletop_client", "bench"]


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
