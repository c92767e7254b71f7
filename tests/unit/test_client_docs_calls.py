"""docs/client.md's table of calls names only methods the Python client has."""

from __future__ import annotations

import re
from pathlib import Path

from tabletop_client import Seat, TabletopClient

DOC = Path(__file__).resolve().parents[2] / "docs" / "client.md"


def test_every_call_in_the_table_exists() -> None:
    table = DOC.read_text().split("### What it offers", 1)[1].split("###", 1)[0]
    calls = re.findall(r"`(client|seat)\.(\w+)\(", table)
    assert len(calls) > 20
    missing = [f"{owner}.{name}" for owner, name in calls if not hasattr(TabletopClient if owner == "client" else Seat, name)]
    assert missing == []
