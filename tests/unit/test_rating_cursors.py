"""A leaderboard page's ``next_cursor`` is accepted back, by the server and the contract.

A CI run (2026-12-07) paged a leaderboard one entry at a time and got 400
``invalid_parameter`` on a cursor the server had just written: an ordinal between 0.0001
and 0.001 is written by ``repr`` with three zeros and 17 significant digits, 20 decimals,
and the cursor pattern allowed 17.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from events.projections.rating_reads import BOARD_CURSOR, _board_cursor

ROOT = Path(__file__).resolve().parents[2]

ORDINALS = st.floats(min_value=-1e15, max_value=1e15, allow_nan=False, allow_infinity=False)
"""Ordinals as the leaderboard stores them (far wider than openskill ever gives)."""


def contract_pattern() -> re.Pattern[str]:
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    return re.compile(spec["components"]["parameters"]["RatingBoardCursor"]["schema"]["pattern"])


CONTRACT = contract_pattern()


@given(ORDINALS, st.sampled_from(["bot:strong", "player:ada", "player:Zoë O'Neil"]))
@example(0.00012345678901234567, "bot:random")
@example(-0.0009876543210987654, "player:ada")
@example(5e-324, "bot:greedy")
@example(-0.0, "bot:greedy")
def test_every_cursor_a_page_writes_is_read_back_as_it_was(ordinal: float, ident: str) -> None:
    cursor = f"{ordinal!r}:{ident}"  # how rating_reads.leaderboard writes next_cursor
    assert BOARD_CURSOR.fullmatch(cursor) and CONTRACT.fullmatch(cursor), cursor
    assert _board_cursor(cursor) == (ordinal, ident)
