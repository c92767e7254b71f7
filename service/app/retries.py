"""Idempotency keys: whose they are, and how a retry is answered.

**Scopes.** The store keeps a game's idempotency records in one hash (``events.redis_adapter.keys``).
Every key is stored under the scope of the actor that the application verified for
the command -- :func:`scoped_key` is the only place a key gets its scope:

- ``seat:<n>:<key>``: a person's ``Idempotency-Key``, after their seat token was checked;
- ``bot:<n>:<key>``: a bot turn (the bot job's key is the version it plays at);
- ``sys:...``: reserved for the server's own appends (none uses a key today).

A client's key always lands under ``seat:<its seat>:``, so no client can reach a bot's
or the system's records, nor another seat's: sending ``bot:...`` or ``seed-revealed``
as a key only ever names ``seat:<n>:bot:...``. The seed reveal needs no key at all:
it is appended at the expected version right after ``GameEnded``, and a second try
conflicts (nothing but the reveal can follow the end), which is its idempotency.

**Answers.** A record is slim -- first and last version, head hash, fingerprint
(``events.chain.batch``) -- so a retry's answer is rebuilt by :func:`replay_outcome` from the
stored events: the events ``first..last`` as the retrying seat may see them and the
view at version ``last``, through the same ``documents`` functions as the first
answer, and encoded the same way (sorted keys: stored events come back in canonical
key order). The fold is a full read of the history up to ``last`` -- a retry is rare,
the normal path pays nothing. Records written before slim records carry the first
answer itself (``response``), which is answered as it was stored.
"""

from __future__ import annotations

import json
from typing import Any

from engine.model import JSON
from engine.registry import get_game
from engine.table import Table, evolve_table
from events.model.port import AppendResult
from events.model.redaction import ADMIN
from service.app import documents
from service.app.errors import GameNotFound

SEAT_SCOPE, BOT_SCOPE, SYSTEM_SCOPE = "seat", "bot", "sys"


def scoped_key(actor: JSON, key: str) -> str:
    """``key`` under the scope of ``actor`` (a seat or a bot actor, already verified)."""
    kind = actor.get("kind")
    if kind == "seat":
        return f"{SEAT_SCOPE}:{actor['seat']}:{key}"
    if kind == "bot":
        return f"{BOT_SCOPE}:{actor['seat']}:{key}"
    return f"{SYSTEM_SCOPE}:{key}"


def replay_outcome(store: Any, game_id: str, earlier: AppendResult, seat: int) -> JSON:
    """The outcome document of the batch ``earlier`` names, as ``seat`` saw it first.

    Raises what the store's reads raise, GameNotFound if the history is gone (the
    versions were written, so only an operator's deletion can cause that)."""
    if earlier.response is not None:  # a record written before slim records
        document: JSON = json.loads(earlier.response)
        return document
    table: Table | None = None
    game = None
    batch = []
    for envelope in store.read_range(game_id, ADMIN, 1, earlier.last_version):
        if game is None:
            game = get_game(envelope.data["game"])
        event = envelope.to_event()
        table = evolve_table(game, table, event, envelope.version, envelope.time)
        if envelope.version >= earlier.first_version:
            batch.append(event)
    if table is None:
        raise GameNotFound("no game has this id")
    return documents.outcome_document(game_id, table, batch, seat)
