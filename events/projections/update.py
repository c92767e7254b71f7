"""Bringing one game's read models up to date with its stream: the projector's core.

:meth:`Updater.update` reads the game's events after its read model's checkpoint
(as ADMIN: the fold needs the hidden facts; only views leave the server), folds
them into the stored table, and writes the new read models with
``ReadModels.apply`` -- which refuses if the checkpoint moved meanwhile. Then it
finishes the cross-slot read models (player totals, then the lobby index).

Guarantees:
- every event is applied at most once per read model (checkpoint check for the
  per-game models, idempotent scripts for the others; see ``redis_models``);
- nothing is lost by a crash at any point: the stream is the source, the
  checkpoint says where to resume, and a lobby entry behind the game's status
  says that the cross-slot part is still to do;
- any number of updaters may run on one game at once: the loser of a race re-reads
  and retries, and a game whose checkpoint keeps moving is left to the winners.

Ratings (``events.projections.ratings``): a game that has just finished is submitted
to the ratings with the other cross-slot models (before the lobby, so a lobby showing
"finished" means it was submitted) and the queued games of its type are rated at once.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

from engine.forfeit import seats_out
from engine.registry import get_game
from engine.table import FINISHED, OPEN, Table
from events.model.envelope import Envelope
from events.model.errors import GameNotFound
from events.model.port import EventReader
from events.model.redaction import ADMIN
from events.projections.model import fold, record_of
from events.projections.notices import NoticeWriter
from events.projections.rating_outcome import (
    FORFEIT,
    ended_time,
    forfeited_seats,
    outcome_of,
    rateable,
)
from events.projections.ratings import Ratings
from events.projections.redis_models import ReadModels, status_rank

ATTEMPTS = 5
"""How often :meth:`Updater.update` retries after losing a race on the checkpoint.
Losing that often means other projectors are advancing the game: they finish it."""


@dataclass(frozen=True, slots=True)
class Update:
    """The outcome for one game: its read model's checkpoint, and how many events this
    call applied (0 when it was already up to date or another projector won)."""

    game_id: str
    version: int
    applied: int


class Updater:
    """Updates read models from an event store. Thread-safe; share one per process."""

    def __init__(
        self,
        reader: EventReader,
        models: ReadModels,
        ratings: Ratings | None = None,
        *,
        rate_on_finish: bool = True,
    ) -> None:
        """``rate_on_finish`` False: a game that finishes is only submitted to the ratings
        and ``ratings_due`` is set; the caller rates the queue when it sees fit (the
        projector: once it has caught up with the feed, so that a backlog is rated once,
        in order, instead of being re-rated as its earlier games trickle in)."""
        self.reader = reader
        self.models = models
        self.ratings = ratings or Ratings(models.client, models.keys.prefix)
        self.rate_on_finish = rate_on_finish
        self.ratings_due = threading.Event()
        self.notices = NoticeWriter(models.client, models.keys.prefix)

    def update(self, game_id: str) -> Update:
        """Bring ``game_id``'s read models up to the stored head (see module docstring).

        A game without events yields version 0. Raises UnprojectableGame,
        ValueError for an invalid id, ``redis.RedisError`` when Redis is down (all
        before or between idempotent writes: calling again is always safe).
        """
        stored = self.models.load(game_id)
        if stored.version > 0 and stored.table is None:
            return self.rebuild(game_id)  # unreadable, or written under older rules
        for _ in range(ATTEMPTS):
            envelopes = self.reader.read_range(game_id, ADMIN, stored.version + 1)
            if not envelopes:
                # A redelivery: whatever a crash left undone after the last write
                # (cross-slot read models, notices: both idempotent).
                self._finish_cross_slot(game_id, stored.table, stored.lobby_rank)
                self.notices.write(game_id, stored.table, stored.table, self._repeated(stored.table))
                return Update(game_id, stored.version, 0)
            table = fold(game_id, stored.table, envelopes)
            assert table is not None  # envelopes is not empty
            if self.models.apply(game_id, stored.version, record_of(table)):
                self._finish_cross_slot(game_id, table, stored.lobby_rank, envelopes)
                self.notices.write(game_id, stored.table, table, self._repeated(table))
                return Update(game_id, table.version, len(envelopes))
            stored = self.models.load(game_id)  # someone else advanced it: start again there
        return Update(game_id, stored.version, 0)

    def rebuild(self, game_id: str, *, rate: bool = True) -> Update:
        """Replace ``game_id``'s read models with ones folded from its whole history.

        Raises GameNotFound for a game without events, UnprojectableGame if the
        history cannot be folded. A newer model written meanwhile by a live
        projector is kept (``scripts.REPLACE_GAME``). The lobby entry and the
        totals are synced again whatever they show (both idempotent), and a finished
        game is submitted to the ratings (once, as always); ``rate`` False leaves
        rating the queue to the caller (a full rebuild rates once, at the end).
        """
        envelopes = self.reader.read_all(game_id, ADMIN)
        table = fold(game_id, None, envelopes)
        if table is None:
            raise GameNotFound(game_id)
        written = self.models.replace(game_id, record_of(table))
        self._finish_cross_slot(game_id, table, lobby_rank=0, recent=envelopes, rate=rate)
        self.notices.write(game_id, None, table, self._repeated(table))
        return Update(game_id, table.version, len(envelopes) if written else 0)

    def _repeated(self, table: Table | None) -> Table | None:
        """The finished game an open rematch repeats, as projected (its players are
        offered their seats: ``notices.rematch_offers``); None for any other table, or
        when that game's read model is gone (archived)."""
        if table is None or table.rematch_of is None or table.status != OPEN:
            return None
        return self.models.load(table.rematch_of).table

    def _finish_cross_slot(
        self,
        game_id: str,
        table: Table | None,
        lobby_rank: int,
        recent: Sequence[Envelope] = (),
        rate: bool = True,
    ) -> None:
        """Player totals and the rating submission, then the lobby index -- in this order,
        so a lobby showing "finished" means the totals and the submission are done too;
        then the queued games of the finished game's type are rated (``rate``).
        Only when the lobby does not show the table's status yet: a status changes at
        most three times per game. ``recent``: the envelopes just folded (where a game
        that has just ended has its ``GameEnded``, whose time the ratings need)."""
        if table is None or lobby_rank >= status_rank(table.status):
            return
        self.models.count_finished(game_id, table)
        if table.status == FINISHED:
            self._submit_rating(game_id, table, recent)
        self.models.sync_lobby(game_id, table)
        if table.status == FINISHED and rate:
            # After the lobby: rating may re-rate later games (see ``ratings``) and must
            # not hold up the rest; what is left queued, reconciliation rates.
            if self.rate_on_finish:
                self.ratings.rate_pending(table.game)
            else:
                self.ratings_due.set()

    def _submit_rating(self, game_id: str, table: Table, recent: Sequence[Envelope]) -> None:
        if not rateable(table):
            return
        game = get_game(table.game)
        result = game.result(table.state)
        ended, forfeited = ended_time(recent), forfeited_seats(recent)
        if ended is None or (forfeited is None and result is not None and result.reason == FORFEIT):
            # A redelivery after a crash, or a forfeit recorded in an earlier batch: look
            # the end (and who forfeited) up in the whole history.
            history = self.reader.read_all(game_id, ADMIN)
            ended, forfeited = ended_time(history), forfeited_seats(history)
        # Schlitzohr plays on after a seat leaves: its table knows every seat that is out,
        # however long before the end it left (a batch the look-ups above may not see).
        out = seats_out(game, table.state) | (forfeited or frozenset())
        outcome = outcome_of(game_id, table, result, ended, out)
        if outcome is not None:
            self.ratings.submit(outcome)
