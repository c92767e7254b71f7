"""Reading a game's view and scores, never older than the version the caller needs.

"A reader never sees a view older than the version its own command produced":
the caller passes ``min_version`` (the ``last_version`` its append returned). If
the read model's checkpoint is at least that, the projected view is returned
(one HMGET). Otherwise -- the projector has not got there yet -- the view is
computed from the store: the read model's stored table plus the events after its
checkpoint (or the whole history when there is no read model), folded exactly as
the projector folds them. The fallback writes nothing: only the projector writes.

Viewers (``events.model.redaction``): a seat number sees its seat's view; a spectator
or an auditor (admin or not) sees the spectator view -- an engine view exists
only per seat or for spectators.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine.model import JSON
from engine.registry import get_game
from engine.table import Table
from events.model.canonical import canonical_json
from events.model.errors import GameNotFound
from events.model.port import EventReader
from events.model.redaction import ADMIN, Auditor, Spectator, Viewer
from events.projections import model
from events.projections.redis_models import ReadModels


@dataclass(frozen=True, slots=True)
class ProjectedView:
    """A viewer's view at ``version``. ``seat`` None = the spectator view;
    ``projected`` False when it was computed from the store (the projector lagged)."""

    game_id: str
    version: int
    status: str
    seat: int | None
    view: JSON
    projected: bool


@dataclass(frozen=True, slots=True)
class GameScores:
    """Scores of every seat at ``version``, and the result once the game has ended."""

    game_id: str
    version: int
    status: str
    scores: list[int]
    result: JSON | None
    projected: bool


def seat_of(viewer: Viewer) -> int | None:
    """The seat whose view ``viewer`` gets (None = spectator); TypeError for a non-viewer."""
    if type(viewer) is int:
        return viewer
    if isinstance(viewer, (Spectator, Auditor)):
        return None
    raise TypeError(f"not a viewer: {viewer!r}")


def read_view(
    models: ReadModels, reader: EventReader, game_id: str, viewer: Viewer, min_version: int = 0
) -> ProjectedView:
    """``viewer``'s view of ``game_id`` at a version >= ``min_version`` (see module docstring).

    If even the store is behind ``min_version`` (the caller's version is from the
    future) the newest view there is comes back: compare ``version``. Raises
    GameNotFound for a game without events, ValueError for a seat the game does
    not have, TypeError for a non-viewer.
    """
    seat = seat_of(viewer)
    field = model.SPECTATOR_VIEW if seat is None else model.seat_view_field(seat)
    fields = (model.CHECKPOINT, model.STATUS, model.SEATS, field)
    version, status, seats, text = models.client.hmget(models.keys.view(game_id), *fields)
    if version is not None:
        _check_seat(seat, int(seats))
        if int(version) >= min_version and text is not None:
            return ProjectedView(game_id, int(version), _str(status), seat, json.loads(text), True)
    table = current_table(models, reader, game_id)
    _check_seat(seat, len(table.seats))
    view = _json(get_game(table.game).view(table.state, seat))
    return ProjectedView(game_id, table.version, table.status, seat, view, False)


def read_scores(
    models: ReadModels, reader: EventReader, game_id: str, min_version: int = 0
) -> GameScores:
    """Scores and result of ``game_id`` at a version >= ``min_version``, like :func:`read_view`."""
    fields = (model.CHECKPOINT, model.STATUS, model.SCORES, model.RESULT)
    version, status, scores, result = models.client.hmget(models.keys.view(game_id), *fields)
    if version is not None and int(version) >= min_version and scores is not None:
        return GameScores(
            game_id, int(version), _str(status), json.loads(scores), json.loads(result), True
        )
    table = current_table(models, reader, game_id)
    computed, outcome = model.scores_of(table)
    return GameScores(game_id, table.version, table.status, computed, outcome, False)


def current_table(models: ReadModels, reader: EventReader, game_id: str) -> Table:
    """The table at the store's head: the stored table plus the events after it.
    Raises GameNotFound for a game without events."""
    stored = models.load(game_id)
    start = stored.table.version + 1 if stored.table is not None else 1
    table = model.fold(game_id, stored.table, reader.read_range(game_id, ADMIN, start))
    if table is None:
        raise GameNotFound(game_id)
    return table


def _check_seat(seat: int | None, seats: int) -> None:
    if seat is not None and not 0 <= seat < seats:
        raise ValueError(f"no seat {seat}: this game has seats 0..{seats - 1}")


def _json(value: Any) -> Any:
    """``value`` as it reads back from stored JSON (tuples become lists), so a computed
    view equals a projected one."""
    return json.loads(canonical_json(value))


def _str(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
