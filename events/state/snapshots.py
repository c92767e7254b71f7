"""Snapshots: encoding engine states for the store, and deciding when one is due.

A snapshot is a cache. Loading = latest snapshot + the events after it, and that
must equal a full replay (tested over random games of every type). A snapshot
written under another rules version is ignored, as is one that fails to decode:
the loader then replays the whole history.
"""

from __future__ import annotations

from functools import cache
from operator import attrgetter
from typing import Any

from events.model.port import Snapshot
from events.state.codec import Constant, StateCodec


@cache
def default_codec() -> StateCodec:
    """The codec for every registered game's state.

    Schlitzohr states hold a compiled ``Board``: a shared constant compared by
    identity, so it is stored by layout name and looked up again on load.
    """
    from engine.schlitzohr.board import LAYOUTS, Board

    return StateCodec([Constant(Board, attrgetter("name"), LAYOUTS.__getitem__)])


def snapshot_of(
    state: Any, version: int, rules_version: str, codec: StateCodec | None = None
) -> Snapshot:
    """A snapshot of ``state`` after event ``version``; SnapshotError if not encodable."""
    return Snapshot(version, rules_version, (codec or default_codec()).encode(state))


def snapshot_due(snapshot_version: int, version: int, every: int) -> bool:
    """Whether the history has grown by ``every`` events since the last snapshot."""
    return version - snapshot_version >= every
