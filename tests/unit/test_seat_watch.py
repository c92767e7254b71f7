"""``SeatWatch``: what a seat's stream may show as its events go by, event by event."""

from __future__ import annotations

from events.model.redaction import SPECTATOR
from service.http.sse import Message, SeatWatch


def _m(version: int, type_: str, seat: int | None = None) -> Message:
    return Message(version, type_, f"id: {version}\n\n", seat)


def test_a_seat_is_a_spectator_until_play_starts_then_itself() -> None:
    watch = SeatWatch(0, checked_at=3, settled=False, by_token=True)
    assert watch.viewer == SPECTATOR
    batch = [_m(3, "SeatTaken"), _m(4, "SeatTaken"), _m(5, "PlayStarted"), _m(6, "SetPlayed")]
    sent, stop = watch.cut(batch)
    assert sent == batch[:3] and not stop  # the rest is read again, as the seat
    assert watch.viewer == 0
    assert watch.cut(batch[3:]) == (batch[3:], False)


def test_a_later_seat_change_of_its_own_seat_ends_the_stream_after_it() -> None:
    left = SeatWatch(1, checked_at=4, settled=False, by_token=False)
    batch = [_m(5, "SeatLeft", 0), _m(6, "SeatTaken"), _m(7, "SeatLeft", 1), _m(8, "SeatTaken")]
    assert left.cut(batch) == (batch[:3], True)  # seat 0 leaving is someone else's business
    reissued = [_m(9, "SeatTokenReissued", 1), _m(10, "SetPlayed")]
    assert SeatWatch(1, 4, True, by_token=True).cut(reissued) == (reissued[:1], True)
    # A player key holds its seat through a reissue of the seat's token.
    assert SeatWatch(1, 4, True, by_token=False).cut(reissued) == (reissued, False)


def test_changes_up_to_the_checked_version_are_history_not_news() -> None:
    # The credential held the seat at version 10: an earlier holder's leaving, an earlier
    # reissue and the start are old news, streamed like any event.
    watch = SeatWatch(0, checked_at=10, settled=True, by_token=True)
    batch = [_m(2, "SeatLeft", 0), _m(3, "SeatTaken"), _m(6, "PlayStarted"), _m(8, "SeatTokenReissued", 0)]
    assert watch.cut(batch) == (batch, False)


def test_a_credential_found_gone_sends_nothing_more() -> None:
    valid = [True]
    watch = SeatWatch(0, 1, True, by_token=False, still_valid=lambda: valid[0])
    batch = [_m(2, "SetPlayed"), _m(3, "CardDrawn")]
    assert watch.admit(batch) == (batch, False)
    valid[0] = False
    assert watch.admit(batch) is None
