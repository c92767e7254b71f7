"""The turn clock's pure parts: settings, the fold of event times, and forfeits."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from support.engine_states import apply, new_state

from engine.errors import RuleViolation
from engine.forfeit import forfeit_events
from engine.registry import get_game
from engine.rng import SeededRandom
from engine.turnclock import check_clock, start, tick, time_ms, timed_out


def test_time_ms_agrees_with_datetime_over_many_instants() -> None:
    rng = SeededRandom(b"times", "t")
    base = datetime(1970, 1, 1, tzinfo=UTC)
    for i in range(2000):
        instant = base + timedelta(microseconds=rng.randbelow(5_000_000_000_000_000, f"t{i}"))
        text = instant.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        assert time_ms(text) == (instant - base) // timedelta(milliseconds=1)


def test_check_clock_completes_and_refuses() -> None:
    assert check_clock(None) is None
    assert check_clock({"per_decision_s": 5, "policy": "forfeit"}) == {
        "per_decision_s": 5, "reserve_s": 0, "policy": "forfeit"
    }
    with pytest.raises(RuleViolation) as bad:
        check_clock({"per_decision_s": 5, "policy": "bot:strong"})
    assert bad.value.code == "invalid_clock" and bad.value.details["field"] == "policy"


def test_the_reserve_pays_for_overruns_and_deadlines_follow() -> None:
    clock = start({"per_decision_s": 10, "reserve_s": 5, "policy": "forfeit"}, 2)
    clock = tick(clock, [0], 1_000, engine_event=False)  # seat 0 to act from t = 1 s
    assert clock.deadlines() == {0: 1_000 + 10_000 + 5_000}
    clock = tick(clock, [1], 13_000, engine_event=True)  # seat 0 took 12 s: 2 s from its reserve
    assert clock.reserve_left == (3_000, 5_000) and clock.deadlines() == {1: 13_000 + 15_000}
    clock = tick(clock, [0], 40_000, engine_event=True)  # seat 1 took 27 s: its reserve is gone
    assert clock.reserve_left == (3_000, 0)
    assert clock.due(40_000 + 13_000) == 0 and clock.due(40_000 + 12_999) is None
    pending = timed_out(clock, 0)
    assert pending.deadlines() == {} and pending.pending == 0
    assert tick(pending, [1], 60_000, engine_event=True).pending is None
    assert tick(pending, [0], 60_000, engine_event=False).pending == 0  # a table event keeps it


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_an_abluxxen_forfeit_ends_the_game_and_the_forfeiting_seat_never_wins(players: int) -> None:
    engine = get_game("abluxxen")
    state = new_state("abluxxen", players)
    seat = next(iter(engine.to_act(state)))
    (ended,) = forfeit_events(engine, state, seat)
    result = engine.result(apply("abluxxen", state, [ended]))
    assert result is not None and result.reason == "forfeit"
    assert seat not in result.winners and result.winners
    with pytest.raises(ValueError):
        forfeit_events(engine, state, (seat + 1) % players)


def test_a_schlitzohr_forfeit_skips_the_seat_until_one_is_left() -> None:
    engine = get_game("schlitzohr")
    state = new_state("schlitzohr", 3)
    first = next(iter(engine.to_act(state)))
    events = forfeit_events(engine, state, first)
    assert [e.type for e in events] == ["SeatForfeited", "TurnEnded"]
    state = apply("schlitzohr", state, events)
    second = next(iter(engine.to_act(state)))
    assert second == (first + 1) % 3 and engine.result(state) is None
    # The second seat plays a whole turn; the turn then skips the forfeited seat.
    rng = SeededRandom(b"play", "rules")
    turn = state.turn
    while state.turn == turn:
        (seat,) = engine.to_act(state)
        state = apply("schlitzohr", state, engine.decide(state, seat, engine.legal_commands(state, seat)[0], rng))
    assert engine.to_act(state) and first not in engine.to_act(state)
    seat = next(iter(engine.to_act(state)))
    ended = forfeit_events(engine, state, seat)
    assert [e.type for e in ended] == ["SeatForfeited", "GameEnded"]
    result = engine.result(apply("schlitzohr", state, ended))
    assert result is not None and result.reason == "forfeit"
    assert result.winners == (3 - first - seat,)  # the one seat left in wins
