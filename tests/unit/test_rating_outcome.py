"""Who is rated in a finished game, with which rank -- pure, from the events alone."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.model import Result
from engine.table import FINISHED, RUNNING, Seat, Table
from events.envelope import Envelope
from events.projections.rating_outcome import (
    identity,
    outcome_of,
    rated_players,
    ranks,
    seat_identity,
    split_identity,
)

ENDED = "2026-12-01T10:00:00.000123Z"


def envelope(version: int, type_: str, data: dict, time: str = ENDED) -> Envelope:
    return Envelope(
        "g1", version, type_, 1, time, {"kind": "system"}, None, data, None, [], "0" * 64, "0" * 64
    )


def table(seats: int, status: str = FINISHED) -> Table:
    return Table("schlitzohr", {}, tuple(Seat("x") for _ in range(seats)), status, None, 9, ENDED, "c")


@pytest.mark.parametrize(
    ("scores", "winners", "want"),
    [
        ((5, 3), (0,), [1, 2]),
        ((3, 5, 5), (1, 2), [3, 1, 1]),  # a shared win
        ((4, 4, 1, 4), (3,), [2, 2, 4, 1]),  # abluxxen: a tie-break made seat 3 the winner
        ((2, 2, 2), (0, 1, 2), [1, 1, 1]),
        ((7, 1, 1, 0), (0,), [1, 2, 2, 4]),  # competition ranking: 1 2 2 4
    ],
)
def test_ranks_put_winners_first_then_scores_and_share_ties(
    scores: tuple[int, ...], winners: tuple[int, ...], want: list[int]
) -> None:
    assert ranks(Result(scores, winners, "end", 10)) == want


def test_identities_of_accounts_bots_and_guests() -> None:
    assert seat_identity({"seat": 0, "name": "Ann", "bot": None, "account": "ann", "guest": False}) == "player:ann"
    assert seat_identity({"seat": 0, "name": "Ann", "bot": None, "guest": True}) is None
    assert seat_identity({"seat": 0, "name": "Ann", "bot": None}) is None  # before accounts: a guest
    assert seat_identity({"seat": 0, "name": "Bot", "bot": "greedy"}) == "bot:greedy"
    # a guest cannot pass for an account by naming one
    assert seat_identity({"seat": 0, "name": "x", "bot": None, "account": "ann", "guest": True}) is None
    assert split_identity(identity("bot:greedy", False)) == ("bot:greedy", False)
    assert split_identity("bot:strong") == ("strong", True)
    with pytest.raises(ValueError):
        split_identity("player:")


def test_one_seat_per_identity_and_guests_dropped() -> None:
    seats = ["bot:greedy", None, "bot:greedy", "bot:random"]
    assert rated_players(seats, [3, 1, 2, 4]) == [("bot:greedy", 3), ("bot:random", 4)]


def history(*seats: dict) -> list[Envelope]:
    out = [envelope(1, "GameCreated", {"game": "schlitzohr", "seats": len(seats)}, "2026-12-01T09:00:00.000000Z")]
    out += [envelope(2 + i, "SeatTaken", {"seat": i, **s}) for i, s in enumerate(seats)]
    out.append(envelope(9, "GameEnded", {}))
    return out


def test_outcome_of_a_finished_game() -> None:
    events = history(
        {"name": "a", "bot": "random"}, {"name": "Ann", "bot": None, "account": "Ann", "guest": False}
    )
    result = Result((1, 4), (1,), "end", 10)
    outcome = outcome_of("g1", table(2), result, events)
    assert outcome is not None
    assert outcome.players == (("bot:random", 2), ("player:Ann", 1))
    assert outcome.ended == ENDED and outcome.ended_us % 1_000_000 == 123


def test_games_without_two_identities_or_not_finished_are_not_rated() -> None:
    result = Result((1, 4), (1,), "end", 10)
    same = history({"name": "a", "bot": "greedy"}, {"name": "b", "bot": "greedy"})
    assert outcome_of("g1", table(2), result, same) is None
    guests = history({"name": "a", "bot": None}, {"name": "b", "bot": "greedy"})
    assert outcome_of("g1", table(2), result, guests) is None
    mixed = history({"name": "a", "bot": "random"}, {"name": "b", "bot": "greedy"})
    assert outcome_of("g1", table(2), result, mixed) is not None
    assert outcome_of("g1", table(2, RUNNING), None, mixed) is None
    assert outcome_of("g1", replace(table(2), status="expired"), result, mixed) is None


def test_a_seat_left_before_the_start_is_not_rated() -> None:
    events = history({"name": "a", "bot": "random"}, {"name": "b", "bot": "greedy"})
    events.insert(3, envelope(3, "SeatLeft", {"seat": 0}))
    events.insert(4, envelope(3, "SeatTaken", {"seat": 0, "name": "g", "bot": None}))
    assert outcome_of("g1", table(2), Result((1, 4), (1,), "end", 10), events) is None
