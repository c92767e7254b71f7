"""The client's Server-Sent Events parser (``tabletop_client.sse``) and the terminal
client's menu of legal commands: pure functions, checked on hand-made input."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from service.cli.play.choices import describe, menu
from tabletop_client.sse import SseMessage, messages

STREAM = (
    "retry: 1000\n\n"
    'id: 6\nevent: DieRolled\ndata: {"v": "é"}\n\n'
    ": heartbeat\n\n"
    "id: 7\r\nevent: TurnEnded\r\ndata: line one\r\ndata: line two\r\n\r\n"
    "id: 8\nevent: Cut\ndata: never closed"
).encode()

EXPECTED = [
    SseMessage("6", "DieRolled", '{"v": "é"}'),
    SseMessage("7", "TurnEnded", "line one\nline two"),
]


def test_messages_fields_comments_crlf_and_a_cut_off_last_message() -> None:
    assert list(messages([STREAM])) == EXPECTED


@given(st.lists(st.integers(min_value=1, max_value=len(STREAM) - 1), unique=True))
def test_chunk_borders_anywhere_even_inside_a_character(cuts: list[int]) -> None:
    bounds = [0, *sorted(cuts), len(STREAM)]
    chunks = [STREAM[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]
    assert list(messages(chunks)) == EXPECTED


def test_inspections_are_one_entry_and_the_ears_any_order() -> None:
    legal = [{"kind": "inspect", "ears": list(ears)} for ears in ((0, 1), (0, 5), (1, 5))]
    [inspect] = menu(legal)
    assert inspect.command is None and "inspect 2 ears" in inspect.label
    assert inspect.command_for_ears([5, 0]) == {"kind": "inspect", "ears": [0, 5]}
    assert inspect.command_for_ears([0, 2]) is None  # not a legal set
    assert inspect.command_for_ears([0]) is None


def test_every_other_command_is_an_entry_of_its_own_in_the_servers_order() -> None:
    legal = [
        {"kind": "move", "ear": 3, "to": "f5"},
        {"kind": "peek"},
        {"kind": "place", "ear": 7, "to": "c1"},
    ]
    assert [c.command for c in menu(legal)] == legal
    assert (
        describe({"kind": "play", "number": 9, "count": 2, "jokers": 1}) == "play 2 x 9 + 1 joker"
    )
    assert describe({"kind": "draw", "from": "display", "card": "X"}) == "draw X from the display"
