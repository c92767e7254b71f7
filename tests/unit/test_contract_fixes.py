"""Server fixes the contract run asked for: each admits what the contract admits, or
refuses what it forbids."""

from __future__ import annotations

import pytest
from marshmallow import ValidationError

from events.projections.lobby import parse_cursor
from service.http.body import _loads
from service.http.schemas import VIEW_QUERY


def test_a_whole_number_in_any_spelling_is_that_integer() -> None:
    # JSON Schema's `type: integer` (so the contract) admits 2160.0 and 2.16e3.
    assert _loads(b'{"v": 2160.0, "w": 2.16e3, "x": -0.0, "y": 9007199254740993.0}') == {
        "v": 2160, "w": 2160, "x": 0, "y": 9007199254740993,
    }
    assert type(_loads(b"[2160.0]")[0]) is int
    # Fractions stay fractions (and are refused where an integer is wanted); a huge
    # exponent is never built into a huge integer.
    assert _loads(b"[1.5, 1e300]") == [1.5, 1e300]


def test_cursors_take_ascii_digits_only() -> None:
    assert parse_cursor("17:abc") == (17, "abc")
    with pytest.raises(ValueError):
        parse_cursor("\u0663:abc")  # ARABIC-INDIC DIGIT THREE: isdigit(), not the contract's [0-9]


@pytest.mark.parametrize("wait", ["13.16718764835071", "1e-05", "-0.0", "60"])
def test_wait_takes_every_spelling_of_a_number_in_range(wait: str) -> None:
    assert VIEW_QUERY.load({"wait": wait})["wait"] == float(wait)


@pytest.mark.parametrize("wait", ["60.5", "-1", "1e400", "nan", "soon", "1_0"])
def test_wait_refuses_numbers_out_of_range_and_non_numbers(wait: str) -> None:
    with pytest.raises(ValidationError):
        VIEW_QUERY.load({"wait": wait})
