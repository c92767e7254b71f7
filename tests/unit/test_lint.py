"""The code passes ruff under the rules ``pyproject.toml`` selects (``[tool.ruff.lint]``):
pycodestyle's errors, pyflakes (unused imports and names, undefined names...) and
import order. The whole tree: packages, tests, benches. Well under a second."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_tree_passes_ruff() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
