"""Random tampering: whatever is edited, dropped, duplicated or swapped -- and then re-sealed
-- the verifier reports it (and never raises, whatever garbage the edit produced).

Only facts the rules determine are edited: engine events, ``GameCreated`` and
``SeedRevealed``. Times, player names and token hashes are not determined by
anything; only the chain (up to a trusted head hash) vouches for them.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.audit import live_game, rehash, seal_batches, seed_of

from events.audit.verify import verify_history, verify_lines
from events.model.canonical import canonical_json

LOBBY = {"SeatTaken", "SeatLeft", "PlayStarted"}
VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 120),
    st.text(max_size=4),
    st.sampled_from(["X", "red", "pile", "display", "e5"]),
    st.lists(st.integers(0, 13), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(0, 3), max_size=2),
)


@functools.cache
def _base(game: str) -> str:
    live = live_game(game, 3, seed_of(f"fuzz-{game}"), persons=1)
    return json.dumps(seal_batches("fz", live))


def _paths(value: Any, path: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _paths(item, (*path, index))
    return out


def _set(event: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    target = event
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value


CHAIN = {"version", "prev_hash", "hash", "private_digest", "command_digest"}
"""What a re-sealer recomputes (``support.audit.rehash``)."""


def _untimed(history: list[dict[str, Any]], drop: set[str] | frozenset[str] = frozenset()) -> list[dict[str, Any]]:
    return [{k: v for k, v in event.items() if k != "time" and k not in drop} for event in history]


def _batch_of(items: list[dict[str, Any]], at: int) -> list[int]:
    """The indices of the batch (one command's events: same time, actor and command)
    that holds ``items[at]``."""
    key = lambda e: (e["time"], json.dumps(e["actor"]), json.dumps(e["command"]))  # noqa: E731
    lo = hi = at
    while lo > 0 and key(items[lo - 1]) == key(items[at]):
        lo -= 1
    while hi + 1 < len(items) and key(items[hi + 1]) == key(items[at]):
        hi += 1
    return list(range(lo, hi + 1))


@st.composite
def tampered(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(original, edited) histories of one random edit."""
    original = json.loads(_base(draw(st.sampled_from(["schlitzohr", "abluxxen"]))))
    items = copy.deepcopy(original)
    editable = [i for i, e in enumerate(items) if e["type"] not in LOBBY]
    at = draw(st.sampled_from(editable))
    action = draw(st.sampled_from(["edit", "edit", "edit", "drop", "duplicate", "swap"]))
    if action == "edit":
        event = items[at]
        roots = [("type",), ("visible_to",), ("schema_version",)] + [
            p for key in ("data", "private") for p in _paths(event[key], (key,))
        ]
        _set(event, draw(st.sampled_from(roots)), draw(VALUES))
    elif action == "drop":
        # Only part of a batch: dropping a whole command batch and resealing can leave
        # another legal game (a move step the player need not have made, just before
        # the end), which the verifier rightly accepts -- hypothesis found one.
        partial = [i for i in editable if len(_batch_of(items, i)) > 1]
        del items[draw(st.sampled_from(partial))]
    elif action == "duplicate":
        items.insert(at, copy.deepcopy(items[at]))
    else:
        other = draw(st.sampled_from(editable))
        items[at], items[other] = items[other], items[at]
    return original, items


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=tampered(), reseal=st.booleans())
def test_every_resealed_edit_is_reported(case: tuple[list[Any], list[Any]], reseal: bool) -> None:
    original, items = case
    history = rehash(items) if reseal else items
    report = verify_history(history)
    # Event times are not vouched for (docs/audit.md): swapping two events that differ
    # only in their time leaves the same game -- hypothesis found one. Re-sealed, two
    # swapped events that differ only in their place in the chain (the same card drawn
    # from the display twice) leave the same game too -- hypothesis found that as well.
    drop = CHAIN if reseal else set()
    changed = canonical_json(_untimed(items, drop)) != canonical_json(_untimed(original, drop))
    assert report.ok is not changed, (report.discrepancy, changed)
    if not report.ok:
        assert report.discrepancy is not None and 1 <= report.discrepancy.version <= len(items) + 1


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(st.one_of(st.text(max_size=40), st.binary(max_size=40)), max_size=4))
def test_arbitrary_lines_never_raise(lines: list[Any]) -> None:
    report = verify_lines(lines)
    assert not report.ok and report.discrepancy is not None
    assert report.discrepancy.kind == "structure"
