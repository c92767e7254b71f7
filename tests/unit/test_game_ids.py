"""Game ids: URL-safe, and never read as an option on a command line."""

from __future__ import annotations

import secrets

import pytest

from events.redis_adapter.keys import GAME_ID
from service.app import application
from service.app.application import new_game_id


def test_an_id_drawn_with_a_leading_dash_is_drawn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = iter(["-abcdefghijk", "-bcdefghijkl", "Abcdefghijkl"])
    monkeypatch.setattr(application.secrets, "token_urlsafe", lambda _n: next(drawn))
    assert new_game_id() == "Abcdefghijkl"


def test_fresh_ids_are_valid_and_never_start_with_a_dash() -> None:
    ids = [new_game_id() for _ in range(2000)]  # a leading "-" would come once in 64
    assert all(GAME_ID.fullmatch(i) and not i.startswith("-") for i in ids)
    assert len(set(ids)) == len(ids)
    assert len(ids[0]) == len(secrets.token_urlsafe(application.GAME_ID_BYTES))
