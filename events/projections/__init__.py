"""Projections: read models rebuilt from the game streams, kept in Redis.

What is kept (keys in ``events.redis_adapter.keys``): per game its view for each seat and for
spectators, scores, result, status and checkpoint (``model``); the lobby index
and per-game summaries (``lobby``); per-player-name totals (``players``); ratings of
accounts and bot levels per game type (``ratings``, read by ``rating_reads``).

How it stays correct: ``events.redis_adapter.feed`` notifies after each append; the projector
(``workers.projector``) runs :class:`~events.projections.update.Updater` per
notified game -- read the events after the checkpoint, fold, write with the
checkpoint in one script (``redis_models``). Reconciliation (``reconcile``) and
``rebuild`` need nothing but the streams.

The HTTP layer reads through :class:`~events.projections.reads.ProjectionReader`.
"""

from events.projections.lobby import GameSummary, LobbyPage
from events.projections.players import PlayerTotals
from events.projections.reads import ProjectionReader
from events.projections.rebuild import RebuildReport, rebuild
from events.projections.redis_models import ReadModels
from events.projections.update import Update, Updater
from events.projections.views import GameScores, ProjectedView

__all__ = [
    "GameScores",
    "GameSummary",
    "LobbyPage",
    "PlayerTotals",
    "ProjectedView",
    "ProjectionReader",
    "ReadModels",
    "RebuildReport",
    "Update",
    "Updater",
    "rebuild",
]
