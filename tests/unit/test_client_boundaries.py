"""The client side is what a third party would use: ``tabletop_client`` depends on
``requests`` only, and ``tabletop play`` and the example bot on the client (and
``rich``), never on the server's packages (``service``, ``events``, ``engine``,
``workers``) -- so they work against any server, over HTTP alone."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

ALLOWED = {
    "tabletop_client": {"requests", "tabletop_client"},
    "service/cli/play": {"requests", "rich", "tabletop_client", "service.cli.play"},
    "examples/http_bot.py": {"tabletop_client"},
}


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def outside(name: str, allowed: set[str]) -> bool:
    top = name.split(".")[0]
    if top in sys.stdlib_module_names or top == "__future__":
        return False
    return not any(name == a or name.startswith(a + ".") for a in allowed)


@pytest.mark.parametrize("where", sorted(ALLOWED))
def test_the_client_side_imports_nothing_of_the_server(where: str) -> None:
    target = ROOT / where
    files = [target] if target.is_file() else sorted(target.rglob("*.py"))
    assert files
    found = {
        f"{f.relative_to(ROOT)}: {n}"
        for f in files
        for n in imports(f)
        if outside(n, ALLOWED[where])
    }
    assert found == set()
