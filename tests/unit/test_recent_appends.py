"""The board of recent appends shared by a server's processes (``events.recent``)."""

from __future__ import annotations

import multiprocessing
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.recent import RecentAppends


def texts(first: int, count: int, size: int = 20) -> list[str]:
    """Event-like texts whose version is readable in them."""
    return [f'{{"v":{v},"pad":"{"x" * size}"}}' for v in range(first, first + count)]


def test_a_posted_batch_is_read_back_after_any_version_it_covers() -> None:
    board = RecentAppends.create(slots=8, slot_bytes=4096)
    board.post("p:g1", 5, texts(5, 3))
    assert board.since("p:g1", 4) == texts(5, 3)
    assert board.since("p:g1", 6) == texts(7, 1)
    assert board.since("p:g1", 7) is None  # nothing newer held
    assert board.since("p:g1", 3) is None  # version 4 is not held: a gap is never bridged
    assert board.since("p:g2", 4) is None
    assert board.since("q:g1", 4) is None  # another key prefix is another game


def test_a_continuing_batch_extends_the_run_and_any_other_replaces_it() -> None:
    board = RecentAppends.create(slots=8, slot_bytes=4096)
    board.post("g", 1, texts(1, 2))
    board.post("g", 3, texts(3, 2))
    assert board.since("g", 0) == texts(1, 4)
    board.post("g", 9, texts(9, 1))  # not a continuation (a post was skipped): replaces
    assert board.since("g", 0) is None
    assert board.since("g", 8) == texts(9, 1)


def test_the_oldest_events_make_room_and_a_batch_too_big_empties_the_slot() -> None:
    board = RecentAppends.create(slots=1, slot_bytes=1024)
    for version in range(1, 40):
        board.post("g", version, texts(version, 1, size=100))
    assert board.since("g", 35) == texts(36, 4, size=100)
    assert board.since("g", 1) is None  # dropped to make room (about 7 of these fit)
    board.post("g", 40, texts(40, 1, size=5000))
    assert board.since("g", 39) is None
    assert board.since("g", 35) is None  # nothing stale survives a batch that did not fit


def test_games_sharing_a_slot_replace_each_other() -> None:
    board = RecentAppends.create(slots=1, slot_bytes=4096)
    board.post("a", 1, texts(1, 2))
    board.post("b", 7, texts(7, 1))
    assert board.since("a", 0) is None
    assert board.since("b", 6) == texts(7, 1)


def test_a_busy_slot_is_a_miss_and_a_skipped_post_never_blocks() -> None:
    board = RecentAppends.create(slots=1, slot_bytes=4096)
    board.post("g", 1, texts(1, 1))
    lock = board._locks[0]  # what a process that died mid-post would leave held
    lock.acquire()
    try:
        assert board.since("g", 0) is None
        board.post("g", 2, texts(2, 1))
    finally:
        lock.release()
    assert board.since("g", 0) == texts(1, 1)  # the skipped post changed nothing


def test_too_small_a_board_is_refused() -> None:
    with pytest.raises(ValueError):
        RecentAppends.create(slots=0)
    with pytest.raises(ValueError):
        RecentAppends.create(slots=4, slot_bytes=100)


def _post_in_child(board: RecentAppends) -> None:
    board.post("g", 1, texts(1, 3))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forked processes share the board")
def test_processes_forked_after_creation_share_the_board() -> None:
    board = RecentAppends.create(slots=16, slot_bytes=4096)
    child = multiprocessing.get_context("fork").Process(target=_post_in_child, args=(board,))
    child.start()
    child.join(10)
    assert child.exitcode == 0
    assert board.since("g", 0) == texts(1, 3)


posts = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(1, 4), st.booleans(), st.integers(0, 300)),
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(posts)
def test_whatever_is_read_is_an_exact_run_of_what_was_posted(script: list[tuple[str, int, bool, int]]) -> None:
    """A model check: each game's true history grows by batches (some posts skipped,
    as a busy lock would); every read returns None or exactly the next events."""
    board = RecentAppends.create(slots=2, slot_bytes=700)
    history: dict[str, list[str]] = {"a": [], "b": [], "c": []}
    for key, count, posted, size in script:
        first = len(history[key]) + 1
        batch = [f'{{"k":"{key}","v":{v},"p":"{"y" * size}"}}' for v in range(first, first + count)]
        history[key] += batch
        if posted:
            board.post(key, first, batch)
        for game, events in history.items():
            for after in range(len(events) + 1):
                held = board.since(game, after)
                assert held is None or held == events[after : after + len(held)]
                assert held is None or len(held) > 0
        if posted and len(board.since(key, first - 1) or []) != count:
            assert sum(len(t) + 1 for t in batch) - 1 > board.room  # only a batch too big is lost
