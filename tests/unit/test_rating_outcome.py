"""Who is rated in a finished game, with which rank -- pure, from the events alone."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.model import Result
from engine.table import FINISHED, RUNNING, Seat, Table
from events.model.envelope import Envelope
from events.projections.rating_outcome import (
    ended_time,
    forfeited_seats,
    identity,
    outcome_of,
    ranks,
    rateable,
    rated_players,
    seat_identity,
    split_identity,
)

ENDED = "2026-12-01T10:00:00.000123Z"


def envelope(version: int, type_: str, data: dict, time: str = ENDED) -> Envelope:
    return Envelope(
        "g1", version, type_, 1, time, {"kind": "system"}, None, data, None, [], "0" * 64, "0" * 64
    )


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
    assert seat_identity(Seat("Ann", None, "h", "Ann")) == "player:Ann"
    assert seat_identity(Seat("Ann", None, "h")) is None  # a guest
    assert seat_identity(Seat()) is None  # a free seat
    assert seat_identity(Seat("Bot", "greedy")) == "bot:greedy"
    assert split_identity(identity("bot:greedy", False)) == ("bot:greedy", False)
    assert split_identity("bot:strong") == ("strong", True)
    with pytest.raises(ValueError):
        split_identity("player:")


def test_one_seat_per_identity_and_guests_dropped() -> None:
    seats = ["bot:greedy", None, "bot:greedy", "bot:random"]
    assert rated_players(seats, [3, 1, 2, 4]) == [("bot:greedy", 3), ("bot:random", 4)]


def envelopes(ended: str = ENDED) -> list[Envelope]:
    return [
        envelope(1, "GameCreated", {}, "2026-12-01T09:00:00.000000Z"),
        envelope(8, "GameEnded", {}, ended),
        envelope(9, "SeedRevealed", {}, "2026-12-01T11:00:00.000000Z"),
    ]


def table(*seats: Seat, status: str = FINISHED) -> Table:
    return Table("schlitzohr", {}, seats, status, None, 9, ENDED, "c")


RESULT = Result((1, 4), (1,), "end", 10)


def test_outcome_of_a_finished_game() -> None:
    played = table(Seat("a", "random"), Seat("Ann", None, "h", "Ann"))
    assert rateable(played)
    outcome = outcome_of("g1", played, RESULT, ended_time(envelopes()))
    assert outcome is not None
    assert outcome.players == (("bot:random", 2), ("player:Ann", 1))
    assert outcome.ended == ENDED and outcome.ended_us % 1_000_000 == 123


def test_games_without_two_identities_or_not_finished_are_not_rated() -> None:
    ended = ended_time(envelopes())
    same = table(Seat("a", "greedy"), Seat("b", "greedy"))
    guests = table(Seat("a", None, "h"), Seat("b", "greedy"))
    mixed = table(Seat("a", "random"), Seat("b", "greedy"))
    assert not rateable(same) and not rateable(guests) and rateable(mixed)
    assert outcome_of("g1", same, RESULT, ended) is None
    assert outcome_of("g1", guests, RESULT, ended) is None
    assert outcome_of("g1", mixed, RESULT, ended) is not None
    assert outcome_of("g1", mixed, RESULT, None) is None  # no GameEnded seen
    assert outcome_of("g1", replace(mixed, status=RUNNING), None, ended) is None
    assert outcome_of("g1", replace(mixed, status="expired"), RESULT, ended) is None


def test_an_account_name_cannot_pass_for_a_bot_or_form_another_key() -> None:
    from events.projections.rating_keys import RatingKeys

    keys = RatingKeys("tt:", "schlitzohr")
    posing = seat_identity(Seat("bot:greedy", None, "h", "bot:greedy"))
    assert posing == "player:bot:greedy" and split_identity(posing) == ("bot:greedy", False)
    assert keys.played(posing) != keys.played("bot:greedy")
    for name in ("a}b{c", "x:gen", "*", "../rating", "a b"):
        key = keys.played(identity(name, False))
        assert key.startswith("tt:ratings:{schlitzohr}:played:player%3A")
        assert key.count("{") == 1 and key.count("}") == 1  # the hash tag stays the game type's
        assert not any(c in key[len("tt:ratings:{schlitzohr}:played:") :] for c in "{}*?[]: ")


def test_a_forfeiting_seat_ranks_last_whatever_its_score() -> None:
    result = Result((9, 2, 5), (2,), "forfeit", 7)  # seat 0 led, then ran out of time
    assert ranks(result) == [2, 3, 1]
    assert ranks(result, frozenset({0})) == [3, 2, 1]
    timed_out = envelope(7, "TurnTimedOut", {"seat": 0, "policy": "forfeit", "deadline": "x"})
    by_bot = envelope(7, "TurnTimedOut", {"seat": 1, "policy": "bot:greedy", "deadline": "x"})
    assert forfeited_seats([by_bot, timed_out, *envelopes()]) == frozenset({0})
    assert forfeited_seats([by_bot, *envelopes()]) is None
    played = table(Seat("a", None, "h", "Ann"), Seat("g", "greedy"), Seat("r", "random"))
    outcome = outcome_of("g1", played, result, ENDED, frozenset({0}))
    assert outcome is not None
    assert outcome.players == (("player:Ann", 3), ("bot:greedy", 2), ("bot:random", 1))


def test_a_seat_that_resigned_ranks_last_like_one_that_ran_out_of_time() -> None:
    resigned = Envelope(
        "g1", 8, "SeatForfeited", 1, ENDED, {"kind": "seat", "seat": 2}, {"kind": "resign"},
        {"seat": 2}, None, [], "0" * 64, "0" * 64,
    )
    moved = Envelope(
        "g1", 9, "DieRolled", 1, ENDED, {"kind": "seat", "seat": 1}, {"kind": "roll"},
        {"seat": 1, "value": 3, "purpose": "turn"}, None, [], "0" * 64, "0" * 64,
    )
    assert forfeited_seats([resigned, moved]) == frozenset({2})
    assert forfeited_seats([moved]) is None
    result = Result((1, 4, 9), (1,), "turn_cap", 30)  # seat 2 led on points, then resigned
    assert ranks(result, frozenset({2})) == [2, 1, 3]
