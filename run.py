#!/usr/bin/env python3
"""The two commands of a fresh machine: ``python3 run.py up`` and ``python3 run.py test``.

Needs only python3 >= 3.11. Creates ``.venv`` beside this file on first use,
installs the project into it (again whenever ``pyproject.toml`` changes), then:

- ``up [args...]``   runs ``tabletop up`` (the whole service; see README);
- ``test [args...]`` runs the whole test suite with pytest (extra args go to pytest);
- ``tabletop ...``   runs any other ``tabletop`` command inside the venv.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".tabletop-installed"


def _requirements_digest() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()


def ensure_venv() -> None:
    """Create the venv and install the project with its test extras, once per pyproject change."""
    if sys.version_info < (3, 11):  # noqa: UP036 - run.py is what an older python3 runs first
        sys.exit(f"tabletop needs python >= 3.11, this is {sys.version.split()[0]}")
    if not (BIN / "python").exists():
        print(f"creating {VENV} ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    digest = _requirements_digest()
    if STAMP.exists() and STAMP.read_text() == digest:
        return
    print("installing tabletop and its dependencies ...", flush=True)
    pip = [str(BIN / "python"), "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", "--upgrade", "pip"], check=True)
    subprocess.run([*pip, "install", "-e", f"{ROOT}[test]"], check=True)
    STAMP.write_text(digest)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"up", "test", "tabletop"}:
        print(__doc__)
        return 2
    ensure_venv()
    command, rest = argv[0], argv[1:]
    if command == "test":
        # Both cores by default: xdist hands out tests one by one (its default `--dist load`;
        # `--dist loadfile`, whole files per worker, ran no faster: 398 s against 382 s).
        parallel = [] if any(a.startswith("-n") or a == "--numprocesses" for a in rest) else ["-n", "auto"]
        cmd = [str(BIN / "python"), "-m", "pytest", *parallel, *rest]
    elif command == "up":
        cmd = [str(BIN / "tabletop"), "up", *rest]
    else:
        cmd = [str(BIN / "tabletop"), *rest]
    os.chdir(ROOT)
    # exec so that Ctrl-C and exit codes pass straight through.
    os.execv(cmd[0], cmd)
    return 0  # pragma: no cover - execv does not return


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
