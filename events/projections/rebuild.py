"""Rebuilding read models from the game streams alone (``tabletop projections rebuild``).

A full rebuild deletes every read model under the prefix (views, summaries, the
lobby index, player totals -- never the streams or the feed), then discovers the
games by SCANning their head keys and folds each whole history again. Games are
discovered *after* the delete, so a game created meanwhile is either rebuilt
here or projected afterwards by the live projector; the per-game checkpoint and
the idempotent cross-slot scripts make the two safe to run at the same time.
During a full rebuild readers see missing lobby entries and totals, while views
fall back to the store (``read_view``).

Archived games (``service.app.archiving``) are rebuilt too, from the archive (the
updater's reader falls back to it): ``archived`` lists them. Only their summary,
lobby entry and players' totals are kept in Redis: their view hash is deleted again
after the fold (views of archived games are computed from the archive, like any view
whose read model is missing).

Rebuilding one game (``game_id``) replaces only its own view and summary and
re-syncs its lobby entry and its players' totals (counted once, as always).

Ratings (``events.projections.ratings``): a full rebuild resets them, submits every
finished game while folding it, and rates the whole queue once at the end, in the
rating order -- the very values the live projector holds (see ``ratings``). Rebuilding
one game submits it if it was never submitted, and rates the queue.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from events.model.errors import GameNotFound
from events.projections.reconcile import head_versions, known_games
from events.projections.update import Update, Updater


@dataclass(frozen=True, slots=True)
class RebuildReport:
    """How many games and events a rebuild folded."""

    games: int
    events: int


def rebuild(
    updater: Updater,
    client: Any,
    *,
    game_id: str | None = None,
    on_plan: Callable[[dict[str, int]], None] | None = None,
    on_game: Callable[[Update], None] | None = None,
    archived: Iterable[str] = (),
) -> RebuildReport:
    """Rebuild every game's read models (or only ``game_id``'s); see the module docstring.

    ``on_plan`` gets ``{game id: head version}`` before the first game is folded
    (for a progress bar), ``on_game`` each game's outcome. Raises GameNotFound for
    an unknown ``game_id``; UnprojectableGame stops a full rebuild at that game.
    """
    keys = updater.models.keys
    if game_id is None:
        updater.models.delete_all()
        updater.ratings.reset()
        ids = known_games(client, keys)
    else:
        ids = [game_id]
    plan = head_versions(client, keys, ids)
    gone = {g for g in archived if plan.get(g, 0) == 0} if game_id is None else set()
    if game_id is not None and plan[game_id] == 0:
        head = getattr(updater.reader, "archived_head", lambda _g: None)(game_id)
        if head is None:
            raise GameNotFound(game_id)
        plan[game_id], gone = head.version, {game_id}
    for gid in sorted(gone - plan.keys()):
        plan[gid] = 0  # its version is the archive's; folded below like the others
    if on_plan is not None:
        on_plan(plan)
    events = 0
    for gid in plan:
        outcome = updater.rebuild(gid, rate=game_id is not None)
        if gid in gone:
            client.delete(keys.view(gid))  # archived: keep Redis lean (see the docstring)
        events += outcome.version
        if on_game is not None:
            on_game(outcome)
    if game_id is None:
        updater.ratings.rate_all()
    return RebuildReport(len(plan), events)
