"""The names the server gives its bot seats are reserved, with their look-alikes."""

from __future__ import annotations

import pytest

from engine.registry import game_names, get_game
from engine.table import player_name
from service.app.bot_seats import BOT_LEVELS, bot_seat_name, is_bot_seat_name


def test_every_name_the_server_gives_a_bot_is_reserved() -> None:
    seats = max(get_game(name).max_players for name in game_names())
    names = [bot_seat_name(level, seat) for level in BOT_LEVELS for seat in range(seats + 10)]
    assert names and all(is_bot_seat_name(name) for name in names)


@pytest.mark.parametrize(
    "name",
    [
        "GREEDY-BOT-1",  # case
        "ｇｒｅｅｄｙ-bot-1",  # fullwidth
        "gr\u0435edy-bot-1",  # Cyrillic е
        "greedy-bot-l",  # l for 1
        "greedy-b0t-1",  # 0 for o
        "random-bot-0",  # rn for m is the skeleton's own spelling of "random"
        "randorn-bot-0",
        "greedy\u2013bot\u20131",  # en dashes
        "strong-bot-007",
    ],
)
def test_look_alikes_of_a_bot_name_are_reserved(name: str) -> None:
    assert is_bot_seat_name(player_name(name))


@pytest.mark.parametrize(
    "name", ["alice", "greedy-bot", "greedy-bot-", "greedy-bot-1x", "xgreedy-bot-1", "greedy bot 1", "GreedyBot1", "clever-bot-1"]
)
def test_other_names_are_free(name: str) -> None:
    assert not is_bot_seat_name(player_name(name))
