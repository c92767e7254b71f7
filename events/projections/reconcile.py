"""Finding games whose read models lag behind their streams, from the streams alone.

The feed is only a hint (see ``events.redis_adapter.feed``), so the projector also reconciles:
it lists every game by SCANning the store's head keys ``<p>game:{*}:head`` (on a
cluster, on every primary) and compares, per game, the head version with the
read model's checkpoint, and the read model's status with the lobby's. Cost: one SCAN over the
key space plus one pipelined round trip per :data:`CHUNK` games -- fine every few
seconds for tens of thousands of games; beyond that, run it less often.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from events.projections import model
from events.projections.keys import ReadModelKeys
from events.projections.redis_models import status_rank
from events.redis_adapter.keys import GAME_ID

CHUNK = 500
"""Games compared per pipelined round trip."""


def known_games(client: Any, keys: ReadModelKeys) -> list[str]:
    """The id of every game with a stored head under the prefix, sorted (keys that
    match the pattern without holding a valid game id are not ours: skipped)."""
    found = {keys.game_of(key) for key in client.scan_iter(match=keys.heads_pattern, count=1000)}
    return sorted(game_id for game_id in found if GAME_ID.fullmatch(game_id))


def head_versions(client: Any, keys: ReadModelKeys, game_ids: Sequence[str]) -> dict[str, int]:
    """The stored head version of each game (0 for a game without events)."""
    out: dict[str, int] = {}
    for start in range(0, len(game_ids), CHUNK):
        chunk = game_ids[start : start + CHUNK]
        pipe = client.pipeline(transaction=False)
        for game_id in chunk:
            pipe.hget(keys.head(game_id), "v")
        out.update((g, int(v or 0)) for g, v in zip(chunk, pipe.execute(), strict=True))
    return out


def lagging_games(client: Any, keys: ReadModelKeys, game_ids: Sequence[str]) -> list[str]:
    """The games whose read model is behind their head, or whose cross-slot read
    models (lobby, totals) do not show the read model's status yet."""
    behind: list[str] = []
    for start in range(0, len(game_ids), CHUNK):
        chunk = game_ids[start : start + CHUNK]
        pipe = client.pipeline(transaction=False)
        for game_id in chunk:
            pipe.hget(keys.head(game_id), "v")
            pipe.hmget(keys.view(game_id), model.CHECKPOINT, model.STATUS)
        pipe.hmget(keys.lobby_synced, list(chunk))
        *replies, synced = pipe.execute()
        for i, game_id in enumerate(chunk):
            head, (checkpoint, status) = int(replies[2 * i] or 0), replies[2 * i + 1]
            rank = 0 if status is None else status_rank(_text(status))
            if head > int(checkpoint or 0) or rank > int(synced[i] or 0):
                behind.append(game_id)
    return behind


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
