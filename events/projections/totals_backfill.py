"""Counting the registered players' earlier games by account, once.

Read models written before totals were kept per account counted a registered player's
seat under its *name*, together with the games of any guest who sat under that name
(before it was registered, or to pad it). ``ReadModels.count_finished`` now counts a
registered seat for its account only; this backfill recounts every finished game the
lobby lists, so each account's totals also hold the games it played before the change.

Guarantees: idempotent -- a player's ``counted`` set admits a game once, so a backfill
beside the live projector, another backfill, or one cut off by a crash and run again
counts nothing twice; done once -- ``ReadModelKeys.totals_by_account`` is set at the end
and later runs return at once. Only games with a registered seat are folded (the
others count under names, as before). Failure modes: a Redis or archive error leaves
the mark unset (the projector's next housekeeping pass runs it again). Archived games
are read from the archive when ``history`` has one (the projector's does).
"""

from __future__ import annotations

from engine.table import FINISHED
from events.model.port import EventReader
from events.model.redaction import ADMIN
from events.projections.model import fold
from events.projections.update import Updater

BATCH = 200
"""Finished games read from the lobby per round trip."""


def backfill_account_totals(updater: Updater, history: EventReader | None = None) -> int:
    """Count every finished game's registered seats by account (see the module
    docstring); how many players' totals grew (0 once done). ``history`` reads the games
    (default: the updater's reader); give one with the archive, or archived games --
    whose totals stay in Redis -- are not recounted."""
    history = history or updater.reader
    models = updater.models
    client, keys = models.client, models.keys
    if client.exists(keys.totals_by_account):
        return 0
    finished, start, counted = keys.lobby(FINISHED, None), 0, 0
    # By index: games finishing meanwhile may shift the rest forward (read again,
    # counted once); none leaves the finished list, so none is skipped.
    while ids := client.zrange(finished, start, start + BATCH - 1):
        for raw in ids:
            game_id = raw.decode() if isinstance(raw, bytes) else str(raw)
            table = fold(game_id, None, history.read_all(game_id, ADMIN))
            if table is not None and any(seat.account for seat in table.seats):
                counted += models.count_finished(game_id, table)
        start += BATCH
    client.set(keys.totals_by_account, "1")
    return counted
