"""Resigning (engine.resign): a seat gives up, on its turn or not, in every game."""

from __future__ import annotations

from typing import Any

import pytest
from support.engine_states import apply, new_state

from engine import resign
from engine.errors import RuleViolation
from engine.model import Event
from engine.registry import game_names, get_game
from engine.rng import SeededRandom

RESIGN = {"kind": "resign"}


def play(game: str, state: Any, commands: int, rng: SeededRandom) -> Any:
    """``state`` after up to ``commands`` first-listed commands (fewer if the game ends)."""
    engine = get_game(game)
    for _ in range(commands):
        if engine.result(state) is not None:
            break
        seat = next(iter(engine.to_act(state)))
        state = apply(game, state, engine.decide(state, seat, engine.legal_commands(state, seat)[0], rng))
    return state


def decide(game: str, state: Any, seat: int, command: Any = None) -> list[Event]:
    rng = SeededRandom(b"rules", "rules")
    return resign.decide(get_game(game), state, seat, RESIGN if command is None else command, rng)


@pytest.mark.parametrize("players", [2, 3, 5])
def test_an_abluxxen_seat_resigns_on_its_turn_or_not_and_the_game_ends_without_it_winning(players: int) -> None:
    engine = get_game("abluxxen")
    state = play("abluxxen", new_state("abluxxen", players), 7, SeededRandom(b"a", "rules"))
    acting = next(iter(engine.to_act(state)))
    for seat in {acting, (acting + 1) % players}:
        (ended,) = decide("abluxxen", state, seat)
        result = engine.result(apply("abluxxen", state, [ended]))
        assert result is not None and result.reason == "forfeit"
        assert result.winners and seat not in result.winners
        assert list(result.scores) == list(engine.scores(state))  # the scores as they stand


def test_a_schlitzohr_seat_that_is_not_to_act_leaves_and_the_active_one_plays_on() -> None:
    engine = get_game("schlitzohr")
    state = play("schlitzohr", new_state("schlitzohr", 3), 3, SeededRandom(b"s", "rules"))
    (active,) = engine.to_act(state)
    leaver = (active + 1) % 3
    events = decide("schlitzohr", state, leaver)
    assert [(e.type, e.data) for e in events] == [("SeatForfeited", {"seat": leaver})]
    after = apply("schlitzohr", state, events)
    assert engine.to_act(after) == engine.to_act(state)  # the same seat, the same choices
    assert engine.view(after, None)["forfeited"] == [leaver]
    with pytest.raises(RuleViolation) as again:
        decide("schlitzohr", after, leaver)
    assert again.value.code == "seat_out"
    # Its turns are skipped from now on: the turn goes round without it.
    rng = SeededRandom(b"on", "rules")
    for _ in range(40):
        assert leaver not in engine.to_act(after)
        after = play("schlitzohr", after, 1, rng)
    # The active seat resigns too: one seat is left in, and it wins.
    (active,) = engine.to_act(after)
    ended = decide("schlitzohr", after, active)
    assert [e.type for e in ended] == ["SeatForfeited", "GameEnded"]
    result = engine.result(apply("schlitzohr", after, ended))
    assert result is not None and result.reason == "forfeit"
    assert result.winners == (3 - leaver - active,)


def test_the_active_schlitzohr_seat_resigning_passes_the_turn_on() -> None:
    engine = get_game("schlitzohr")
    state = new_state("schlitzohr", 4)
    (active,) = engine.to_act(state)
    events = decide("schlitzohr", state, active)
    assert [e.type for e in events] == ["SeatForfeited", "TurnEnded"]
    assert engine.to_act(apply("schlitzohr", state, events)).keys() == {(active + 1) % 4}


@pytest.mark.parametrize("game", game_names())
def test_a_resignation_is_refused_when_it_cannot_be(game: str) -> None:
    engine = get_game(game)
    state = new_state(game, 2)
    with pytest.raises(RuleViolation) as extra:
        decide(game, state, 0, {"kind": "resign", "now": True})
    assert extra.value.code == "malformed_command"
    with pytest.raises(RuleViolation) as unknown:  # the kinds it names include resign
        decide(game, state, 0, {"kind": "Resign"})
    assert unknown.value.code == "unknown_command" and "resign" in unknown.value.details["kinds"]
    for seat in (-1, 2, True, "0"):
        with pytest.raises(RuleViolation) as bad_seat:
            decide(game, state, seat)  # type: ignore[arg-type]
        assert bad_seat.value.code == "invalid_seat"
    over = apply(game, state, decide(game, state, 1))
    assert engine.result(over) is not None
    with pytest.raises(RuleViolation) as late:
        decide(game, over, 0)
    assert late.value.code == "game_over"


@pytest.mark.parametrize("game", game_names())
def test_no_game_lists_or_accepts_resign_as_its_own_command(game: str) -> None:
    """The game's rules know no resign (so /legal and the bots never offer it); only the
    table's decide does, and it passes every other command to the game unchanged."""
    engine = get_game(game)
    state, rng = new_state(game, 3), SeededRandom(b"walk", "rules")
    for _ in range(200):
        if engine.result(state) is not None:
            break
        seat = next(iter(engine.to_act(state)))
        legal = engine.legal_commands(state, seat)
        assert all(command["kind"] != "resign" for command in legal)
        with pytest.raises(RuleViolation) as unknown:
            engine.decide(state, seat, RESIGN, rng)
        assert unknown.value.code == "unknown_command"
        command = legal[rng.randbelow(len(legal), "pick")]
        same = SeededRandom(b"same", "rules"), SeededRandom(b"same", "rules")
        assert resign.decide(engine, state, seat, command, same[0]) == engine.decide(state, seat, command, same[1])
        state = apply(game, state, engine.decide(state, seat, command, rng))
