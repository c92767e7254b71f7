"""Reading the ratings: the leaderboard of a game type, and one identity's rating and history.

Read-only; eventually consistent like every read model (a game is on the board once
the projector rated it). Cursors are opaque to clients:

- leaderboard: ``"<ordinal>:<identity>"`` of the last entry of the previous page (the
  board is ordered by ordinal, highest first, then identity, highest first); a page
  continues strictly after it, so entries never repeat within one walk of a board that
  does not change meanwhile;
- history: ``"<score>:<game id>"`` of the last game of the previous page, newest first.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from engine.model import JSON
from engine.registry import game_names
from events.projections.rating_keys import RatingKeys
from events.projections.rating_math import Rating
from events.projections.rating_outcome import identity, split_identity

DEFAULT_LIMIT = 20
"""Entries per page when the caller does not say."""

MAX_ROUNDS = 4
"""Most reads of a history page: entries of games being re-rated are skipped, and a page
that met that many ends early (with a cursor), so one request's work stays bounded."""


@dataclass(frozen=True, slots=True)
class Page:
    """One page of entries; ``next_cursor`` None on the last page."""

    entries: list[JSON]
    next_cursor: str | None


def check_game(game: str) -> None:
    """ValueError for an unknown game type."""
    if game not in game_names():
        raise ValueError(f"unknown game type {game!r}")


def rating_json(ident: str, rating: Rating) -> JSON:
    name, bot = split_identity(ident)
    return {
        "name": name,
        "bot": bot,
        "mu": rating.mu,
        "sigma": rating.sigma,
        "ordinal": rating.ordinal,
        "games": rating.games,
    }


def leaderboard(
    client: Any, prefix: str, game: str, cursor: str | None = None, limit: int = DEFAULT_LIMIT
) -> Page:
    """The rated identities of ``game`` by ordinal, highest first, ``limit`` per page, each
    with its ``position`` (1 = top). ValueError for an unknown game type or a bad cursor."""
    check_game(game)
    k = RatingKeys(prefix, game)
    top: Any = "+inf"
    after: tuple[float, str] | None = None
    if cursor is not None:
        after = _board_cursor(cursor)
        top = repr(after[0])
    out: list[tuple[str, float]] = []
    offset = 0
    while len(out) < limit + 1:
        batch = client.zrevrangebyscore(
            k.board, top, "-inf", start=offset, num=limit + 1, withscores=True
        )
        if not batch:
            break
        offset += len(batch)
        for member, score in batch:
            ident = _text(member)
            if after is None or score < after[0] or ident < after[1]:
                out.append((ident, score))
    page = out[:limit]
    pipe = client.pipeline(transaction=False)
    for ident, _ in page:
        pipe.hget(k.rating, ident)
        pipe.zrevrank(k.board, ident)
    replies = pipe.execute()
    entries = []
    for i, (ident, _) in enumerate(page):
        raw, position = replies[2 * i], replies[2 * i + 1]
        if raw is None or position is None:
            continue  # reset meanwhile (a rebuild)
        entry = rating_json(ident, Rating.from_json(json.loads(raw)))
        entries.append({"position": position + 1, **entry})
    more = len(out) > limit
    return Page(entries, f"{page[-1][1]!r}:{page[-1][0]}" if more else None)


def rating_of(client: Any, prefix: str, game: str, name: str, bot: bool) -> JSON | None:
    """The rating of an account name or bot level in ``game``, None if never rated."""
    check_game(game)
    raw = client.hget(RatingKeys(prefix, game).rating, identity(name, bot))
    return (
        None if raw is None else rating_json(identity(name, bot), Rating.from_json(json.loads(raw)))
    )


def history(
    client: Any,
    prefix: str,
    game: str,
    name: str,
    bot: bool,
    cursor: str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> Page:
    """The rated games of an identity in ``game``, newest first: per game its id, time,
    rank, the number of rated identities, and the rating before and after.
    ValueError for an unknown game type or a bad cursor."""
    check_game(game)
    k, ident = RatingKeys(prefix, game), identity(name, bot)
    top: Any = "+inf"
    after: tuple[int, str] | None = None
    if cursor is not None:
        after = _history_cursor(cursor)
        top = after[0]
    found: list[tuple[str, int, JSON]] = []
    offset, last = 0, None
    for _ in range(MAX_ROUNDS):
        batch = client.zrevrangebyscore(
            k.played(ident), top, "-inf", start=offset, num=limit + 1, withscores=True
        )
        if not batch:
            return _history_page(found, limit, None)
        offset += len(batch)
        games = [(_text(m), int(s)) for m, s in batch]
        games = [(g, s) for g, s in games if after is None or s < after[0] or g < after[1]]
        records = client.hmget(k.record, [g for g, _ in games]) if games else []
        for (game_id, score), raw in zip(games, records, strict=True):
            last = (game_id, score)
            entry = _history_entry(game_id, ident, raw)
            if entry is not None:  # not rated (yet, or any more): queued for (re-)rating
                found.append((game_id, score, entry))
            if len(found) > limit:
                return _history_page(found, limit, None)
    # Bounded work per request: a long run of games queued for re-rating (during a
    # rebuild) ends the page early; the cursor resumes after the last game looked at.
    return _history_page(found, limit, last)


def _history_page(
    found: list[tuple[str, int, JSON]], limit: int, stopped: tuple[str, int] | None
) -> Page:
    page = found[:limit]
    if len(found) > limit:
        return Page([e for *_, e in page], f"{page[-1][1]}:{page[-1][0]}")
    cursor = None if stopped is None else f"{stopped[1]}:{stopped[0]}"
    return Page([e for *_, e in page], cursor)


def _history_entry(game_id: str, ident: str, raw: Any) -> JSON | None:
    if raw is None:
        return None
    record = json.loads(raw)
    mine = next((p for p in record["players"] if p["id"] == ident), None)
    if mine is None:
        return None
    before, after = Rating.from_json(mine["before"]), Rating.from_json(mine["after"])
    return {
        "game_id": game_id,
        "ended": record["ended"],
        "rank": mine["rank"],
        "rated_players": len(record["players"]),
        "before": {"mu": before.mu, "sigma": before.sigma, "ordinal": before.ordinal},
        "after": {"mu": after.mu, "sigma": after.sigma, "ordinal": after.ordinal},
    }


BOARD_CURSOR = re.compile(
    r"-?(?:0|[1-9][0-9]{0,17})(?:\.[0-9]{1,20})?(?:e[-+]?[0-9]{1,3})?:(?:bot|player):[^\x00-\x1f\x7f]+"
)
"""A leaderboard cursor: ``<ordinal>:<identity>`` -- the same pattern as ``openapi.yaml``'s
``RatingBoardCursor`` (a finite float as ``repr`` writes it, so exactly what the contract
admits is accepted). Up to 20 decimals: ``repr`` writes an ordinal between 0.0001 and
0.001 with three zeros and 17 significant digits (with 17, such a page's own
``next_cursor`` was refused: a CI run, 2026-12-07)."""

HISTORY_CURSOR = re.compile(r"[0-9]{1,18}:[A-Za-z0-9_-]{1,64}")
"""A rating history cursor: ``<end time ms>:<game id>`` (``RatingHistoryCursor``)."""


def _board_cursor(cursor: str) -> tuple[float, str]:
    if not isinstance(cursor, str) or not BOARD_CURSOR.fullmatch(cursor):
        raise ValueError(f"invalid cursor {cursor!r}")
    score, _, ident = cursor.partition(":")
    split_identity(ident)
    return float(score), ident


def _history_cursor(cursor: str) -> tuple[int, str]:
    if not isinstance(cursor, str) or not HISTORY_CURSOR.fullmatch(cursor):
        raise ValueError(f"invalid cursor {cursor!r}")
    score, _, game_id = cursor.partition(":")
    return int(score), game_id


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
