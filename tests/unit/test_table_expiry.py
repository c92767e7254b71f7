"""The table's expiry (``GameExpired``) and the scopes of idempotency keys: pure parts."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import RuleViolation
from engine.model import Event
from engine.registry import get_game
from engine.table import (
    EXPIRED,
    Table,
    check_join,
    check_leave,
    check_not_expired,
    evolve_table,
    game_expired,
    game_idle,
    game_started,
    invite_renewed,
    seat_taken,
)
from events.audit.lobby import check_table_event
from events.audit.report import Discrepant
from events.model.envelope import SYSTEM, Envelope, bot_actor, seat_actor
from events.model.records import game_created, new_seed
from events.schemas.shared import GameExpiredData
from service.app.retries import scoped_key


def open_table() -> Table:
    game = get_game("schlitzohr")
    created = game_created(game, game.validate_options({}), 2, new_seed())
    table = evolve_table(game, None, created, 1, "2026-01-01T00:00:00.000000Z")
    return evolve_table(game, table, seat_taken(0, "ada", token_hash="ab" * 32), 2, "")


def test_an_expired_game_is_final() -> None:
    table = evolve_table(get_game("schlitzohr"), open_table(), game_expired(60), 3, "")
    assert (table.status, table.version) == (EXPIRED, 3)
    for attempt in (lambda: check_join(table, "bob", None), lambda: check_leave(table, 0)):
        with pytest.raises(RuleViolation) as refused:
            attempt()
        assert refused.value.code == "game_expired"


def running_table() -> Table:
    game = get_game("schlitzohr")
    table = evolve_table(game, open_table(), seat_taken(1, "bob", token_hash="cd" * 32), 3, "")
    return evolve_table(game, table, game_started(), 4, "")


def envelope(actor: dict, version: int = 3, event: Event | None = None) -> Envelope:
    event = event or game_expired(60)
    return Envelope("g", version, event.type, 1, "", actor, None, event.data, None, [], "0" * 64, "0" * 64)


def test_an_idle_running_game_expires_for_good() -> None:
    table = evolve_table(get_game("schlitzohr"), running_table(), game_idle(604_800), 5, "")
    assert (table.status, table.version) == (EXPIRED, 5)
    with pytest.raises(RuleViolation) as refused:
        check_not_expired(table)
    assert refused.value.code == "game_expired"


def test_the_audit_accepts_an_idle_expiry_only_from_the_system_while_running() -> None:
    idle = game_idle(700_000)
    check_table_event(running_table(), envelope(SYSTEM, 5, idle), last=True)
    with pytest.raises(Discrepant):  # a seat cannot end a game it is losing
        check_table_event(running_table(), envelope(seat_actor(0), 5, idle), last=True)
    with pytest.raises(Discrepant):  # an open game never ran: it is not idle
        check_table_event(open_table(), envelope(SYSTEM, 3, idle), last=True)
    with pytest.raises(Discrepant):  # nor does a running game expire for want of seats
        check_table_event(running_table(), envelope(SYSTEM, 5), last=True)


@pytest.mark.parametrize(
    ("data", "valid"),
    [
        ({"reason": "not_started", "open_s": 60}, True),
        ({"reason": "idle", "idle_s": 604_800}, True),
        ({"reason": "idle", "open_s": 60}, False),
        ({"reason": "not_started", "idle_s": 60}, False),
        ({"reason": "idle"}, False),
        ({"reason": "idle", "idle_s": 1, "open_s": 1}, False),
        ({"reason": "bored", "idle_s": 1}, False),
    ],
)
def test_an_expiry_carries_the_seconds_of_its_reason(data: dict, valid: bool) -> None:
    assert (GameExpiredData().validate(data) == {}) is valid


def test_the_audit_accepts_an_expiry_only_from_the_system_while_open() -> None:
    table = open_table()
    check_table_event(table, envelope(SYSTEM), last=True)
    with pytest.raises(Discrepant):
        check_table_event(table, envelope(seat_actor(0)), last=True)
    expired = evolve_table(get_game("schlitzohr"), table, game_expired(60), 3, "")
    with pytest.raises(Discrepant):
        check_table_event(expired, envelope(SYSTEM, 4), last=True)


@given(key=st.text(min_size=1, max_size=200), seat=st.integers(0, 9), other=st.integers(0, 9))
def test_a_clients_key_never_reaches_another_scope(key: str, seat: int, other: int) -> None:
    mine = scoped_key(seat_actor(seat), key)
    assert mine.startswith(f"seat:{seat}:")
    assert mine != scoped_key(bot_actor(other), key.removeprefix("bot:"))
    assert mine != scoped_key(SYSTEM, key)
    assert mine != "seed-revealed"
    if other != seat:
        assert mine != scoped_key(seat_actor(other), key)


def test_only_a_seat_of_an_open_invite_only_game_renews_its_invite() -> None:
    """The verifier's rule for ``InviteRenewed`` (``events.audit.lobby``)."""
    game = get_game("schlitzohr")
    created = game_created(game, game.validate_options({}), 2, new_seed(), None, "ef" * 32)
    table = evolve_table(game, None, created, 1, "2026-01-01T00:00:00.000000Z")
    table = evolve_table(game, table, seat_taken(0, "ada", token_hash="ab" * 32), 2, "")
    renewal = invite_renewed(0, "12" * 32)
    check_table_event(table, envelope(seat_actor(0), 3, renewal), last=True)  # accepted
    assert evolve_table(game, table, renewal, 3, "").invite_hash == "12" * 32
    for actor, at in ((seat_actor(1), table), (SYSTEM, table), (seat_actor(0), open_table())):
        with pytest.raises(Discrepant):  # another seat, the system, a game anyone may join
            check_table_event(at, envelope(actor, 3, renewal), last=True)

