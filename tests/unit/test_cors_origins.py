"""``TABLETOP_CORS_ORIGINS``: exact origins only, so a typo cannot open the API to every page."""

from __future__ import annotations

import pytest

from service.http.cors import parse_origins


def test_exact_origins_are_parsed_and_lower_cased() -> None:
    raw = " https://Play.Example:8443, http://localhost:5173,,http://[::1]:8080 "
    assert parse_origins(raw) == {
        "https://play.example:8443",
        "http://localhost:5173",
        "http://[::1]:8080",
    }
    assert parse_origins("") == frozenset()


@pytest.mark.parametrize(
    "bad",
    [
        "*",
        "null",
        "https://play.example/",
        "https://play.example/app",
        "ftp://play.example",
        "https://*.example",
        "play.example",
        "https://play.example:port",
        "https://a b.example",
    ],
)
def test_anything_but_an_exact_origin_is_refused_at_start_up(bad: str) -> None:
    with pytest.raises(ValueError, match="TABLETOP_CORS_ORIGINS"):
        parse_origins(f"https://fine.example,{bad}")
