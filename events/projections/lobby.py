"""The lobby: games by status and type, newest first, with cursor pagination.

The index is a sorted set per (status, type) -- ``all`` standing for any -- scored
by creation time in microseconds (see ``events.redis_adapter.keys``); each listed game's details
come from its summary hash, which is written atomically with its view. The index
follows the summaries (eventually consistent): right after a game started it may
still be listed as open for a moment; its summary already says ``running``.

Cursors are opaque to clients: ``"<created µs>:<game id>"`` of the last game of the
previous page. A page continues strictly after it in (created desc, id desc)
order, so games created meanwhile never shift a page (they sort before it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine.model import JSON
from engine.registry import game_names
from events.projections.keys import ReadModelKeys
from events.projections.redis_models import STATUSES
from events.redis_adapter.keys import GAME_ID

DEFAULT_LIMIT = 20
"""Games per page when the caller does not say."""


@dataclass(frozen=True, slots=True)
class GameSummary:
    """What the lobby shows of one game (no hidden facts)."""

    game_id: str
    game: str
    status: str
    created: str
    seats: list[JSON | None]
    options: JSON
    version: int
    invite_only: bool = False
    """Seats need the game's invite code (a summary written before invites: False)."""
    rematch_of: str | None = None
    """The finished game this one is the rematch of (None for any other game)."""

    def to_json(self) -> JSON:
        return {
            "game_id": self.game_id,
            "game": self.game,
            "status": self.status,
            "created": self.created,
            "seats": self.seats,
            "options": self.options,
            "version": self.version,
            "invite_only": self.invite_only,
            "rematch_of": self.rematch_of,
        }


@dataclass(frozen=True, slots=True)
class LobbyPage:
    """One page of games; ``next_cursor`` is None on the last page."""

    games: list[GameSummary]
    next_cursor: str | None

    def to_json(self) -> JSON:
        return {"games": [g.to_json() for g in self.games], "next_cursor": self.next_cursor}


def read_summary(client: Any, keys: ReadModelKeys, game_id: str) -> GameSummary | None:
    """The summary of ``game_id``, or None if it has not been projected."""
    return _summary(game_id, client.hgetall(keys.summary(game_id)))


def list_games(
    client: Any,
    keys: ReadModelKeys,
    *,
    status: str | None = None,
    game_type: str | None = None,
    cursor: str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> LobbyPage:
    """Games with ``status`` and ``game_type`` (None = any), newest first, ``limit`` per page.

    ValueError for an unknown status or type, a malformed cursor or ``limit`` < 1
    (callers cap ``limit`` themselves, e.g. at ``Settings.page_size_max``).
    """
    if status is not None and status not in STATUSES:
        raise ValueError(f"unknown status {status!r}; one of {', '.join(STATUSES)}")
    if game_type is not None and game_type not in game_names():
        raise ValueError(f"unknown game type {game_type!r}")
    if type(limit) is not int or limit < 1:
        raise ValueError(f"limit must be a positive integer, got {limit!r}")
    after = parse_cursor(cursor) if cursor is not None else None
    ranked = _ranked_after(client, keys.lobby(status, game_type), after, limit + 1)
    page = ranked[:limit]
    pipe = client.pipeline(transaction=False)
    for game_id, _ in page:
        pipe.hgetall(keys.summary(game_id))
    found = [_summary(gid, raw) for (gid, _), raw in zip(page, pipe.execute(), strict=True)]
    more = len(ranked) > limit
    next_cursor = f"{page[-1][1]}:{page[-1][0]}" if more else None
    return LobbyPage([s for s in found if s is not None], next_cursor)


def parse_cursor(cursor: str) -> tuple[int, str]:
    """``(created µs, game id)`` of a cursor; ValueError if it is not one of ours."""
    score, _, game_id = cursor.partition(":") if isinstance(cursor, str) else ("", "", "")
    # ASCII digits only: str.isdigit also takes other scripts' digits ("٣"), which the
    # contract's cursor pattern (openapi.yaml) does not admit.
    if not (score.isascii() and score.isdigit()) or not GAME_ID.fullmatch(game_id):
        raise ValueError(f"invalid cursor {cursor!r}")
    return int(score), game_id


def _ranked_after(
    client: Any, key: str, after: tuple[int, str] | None, wanted: int
) -> list[tuple[str, int]]:
    """Up to ``wanted`` ``(game id, score)`` of ``key`` after ``after``, newest first.

    ZREVRANGEBYSCORE from the cursor's score (inclusive); members with that same
    score come in descending id order, so those not below the cursor's id are
    skipped. Ties on a microsecond are rare: one round trip nearly always does.
    """
    top: Any = "+inf" if after is None else after[0]
    out: list[tuple[str, int]] = []
    offset = 0
    while len(out) < wanted:
        batch = client.zrevrangebyscore(key, top, "-inf", start=offset, num=wanted, withscores=True)
        if not batch:
            break
        offset += len(batch)
        for member, score in batch:
            game_id, created = _str(member), int(score)
            if after is None or created < after[0] or game_id < after[1]:
                out.append((game_id, created))
    return out[:wanted]


def _summary(game_id: str, raw: dict[Any, Any]) -> GameSummary | None:
    if not raw:
        return None
    fields = {_str(k): _str(v) for k, v in raw.items()}
    return GameSummary(
        game_id,
        fields["game"],
        fields["status"],
        fields["created"],
        json.loads(fields["seats"]),
        json.loads(fields["options"]),
        int(fields["version"]),
        fields.get("invite_only") == "1",
        fields.get("rematch_of"),
    )


def _str(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
