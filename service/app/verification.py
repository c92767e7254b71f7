"""A finished game's verification report, computed once and kept.

A finished history can never change: its last event is ``SeedRevealed`` and the
store appends nothing after it. So its verification report (``events.audit.verify``)
can never change either, and recomputing it -- a full re-run of the rules, about
0.4 s for a 2,400-event game -- on every call only hands a cheap request expensive
work. :func:`verification_report` computes it on the first call and stores its JSON
text under the game's own key ``<p>game:{<id>}:verification`` (``events.redis_adapter.keys``);
later calls are served from there.

Only a report of a *complete* history is kept: one read while the game's last event
is ``SeedRevealed``. A read between ``GameEnded`` and the seed reveal (the two are
separate appends) is answered but not kept, so an incomplete history's report
(``ok: false``: no seed yet) can never be frozen. The key is written with ``NX``:
concurrent first calls compute the same report, the first write wins.

An archived game's report is the one its move kept (``service.app.archiving``).

Failure modes: Redis errors propagate (the HTTP layer answers 503). A stored text is
trusted as written by this module; deleting the key is always safe (the next call
recomputes it).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from redis.exceptions import RedisError

from engine.table import SEED_REVEALED
from events.audit.verify import verify_lines
from events.redis_adapter.keys import GameKeys
from events.redis_adapter.refusals import write_refusal
from events.redis_adapter.store import RedisEventStore
from service.app.documents import encode


def stored_report(client: Any, prefix: str, game_id: str) -> str | None:
    """The kept report's JSON text, or None if none was kept yet (``client``: the
    store's Redis)."""
    raw = client.get(GameKeys.of(prefix, game_id).verification)
    if raw is None:
        return None
    return raw.decode() if isinstance(raw, bytes) else str(raw)


def verification_report(
    client: Any,
    store: RedisEventStore,
    game_id: str,
    before_compute: Callable[[], None] = lambda: None,
) -> str:
    """The report's JSON text of a finished game: the kept one, else computed now (and
    kept if the history is complete); ``client`` is the store's Redis. ``before_compute`` runs only when the report has
    to be computed (the HTTP layer charges the client's verification limit there)."""
    kept = stored_report(client, store.prefix, game_id)
    if kept is not None:
        return kept
    if store.archived_head(game_id) is not None and store.archive is not None:
        archived = store.archive.report(game_id)  # kept by the move, exactly as it was here
        if archived is not None:
            return archived
    before_compute()
    texts = store.stored_texts(game_id)
    text = encode(verify_lines(texts).to_json())
    if is_complete(texts):
        try:
            client.set(GameKeys.of(store.prefix, game_id).verification, text, nx=True)
        except RedisError as error:
            if write_refusal(error) is None:
                raise
            # Redis takes no writes now (full, or its disk): the report is right all the
            # same; it is kept by the next request that finds Redis writable.
    return text


def is_complete(texts: Sequence[str]) -> bool:
    """Whether a stored history ends with ``SeedRevealed`` (nothing can follow it)."""
    if not texts:
        return False
    try:
        return json.loads(texts[-1]).get("type") == SEED_REVEALED
    except (ValueError, AttributeError):
        return False
