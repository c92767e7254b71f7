"""The read API the HTTP layer calls: one object bound to a Redis client and a store.

Every method reads the read models only (plus the store, for ``read_view`` and
``read_scores`` when the projector lags behind ``min_version``); none writes.
"""

from __future__ import annotations

from typing import Any

from events.model.port import EventReader
from events.model.redaction import Viewer
from events.projections import lobby, players, rating_reads, views
from events.projections.redis_models import ReadModels
from events.state.codec import StateCodec


class ProjectionReader:
    """Views, scores, the lobby and player totals under one key prefix. Thread-safe."""

    def __init__(
        self, client: Any, reader: EventReader, prefix: str, codec: StateCodec | None = None
    ) -> None:
        self.models = ReadModels(client, prefix, codec)
        self.reader = reader

    def read_view(self, game_id: str, viewer: Viewer, min_version: int = 0) -> views.ProjectedView:
        """See :func:`events.projections.views.read_view`."""
        return views.read_view(self.models, self.reader, game_id, viewer, min_version)

    def read_scores(self, game_id: str, min_version: int = 0) -> views.GameScores:
        """See :func:`events.projections.views.read_scores`."""
        return views.read_scores(self.models, self.reader, game_id, min_version)

    def summary(self, game_id: str) -> lobby.GameSummary | None:
        """See :func:`events.projections.lobby.read_summary`."""
        return lobby.read_summary(self.models.client, self.models.keys, game_id)

    def list_games(
        self,
        *,
        status: str | None = None,
        game_type: str | None = None,
        cursor: str | None = None,
        limit: int = lobby.DEFAULT_LIMIT,
    ) -> lobby.LobbyPage:
        """See :func:`events.projections.lobby.list_games`."""
        return lobby.list_games(
            self.models.client,
            self.models.keys,
            status=status,
            game_type=game_type,
            cursor=cursor,
            limit=limit,
        )

    def player_totals(self, name: str, account: bool = False) -> players.PlayerTotals:
        """See :func:`events.projections.players.player_totals`."""
        return players.player_totals(self.models.client, self.models.keys, name, account)

    # Ratings (``events.projections.rating_reads``).

    def leaderboard(
        self, game: str, cursor: str | None = None, limit: int = rating_reads.DEFAULT_LIMIT
    ) -> rating_reads.Page:
        """See :func:`events.projections.rating_reads.leaderboard`."""
        prefix = self.models.keys.prefix
        return rating_reads.leaderboard(self.models.client, prefix, game, cursor, limit)

    def rating_of(self, game: str, name: str, bot: bool) -> Any:
        """See :func:`events.projections.rating_reads.rating_of`."""
        return rating_reads.rating_of(self.models.client, self.models.keys.prefix, game, name, bot)

    def rating_history(
        self,
        game: str,
        name: str,
        bot: bool,
        cursor: str | None = None,
        limit: int = rating_reads.DEFAULT_LIMIT,
    ) -> rating_reads.Page:
        """See :func:`events.projections.rating_reads.history`."""
        prefix = self.models.keys.prefix
        return rating_reads.history(self.models.client, prefix, game, name, bot, cursor, limit)
