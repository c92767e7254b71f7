"""Comparing read models: a plain-data dump of every read-model key under a prefix."""

from __future__ import annotations

from typing import Any

from events.projections import ReadModels, Updater, rebuild
from events.projections.keys import ReadModelKeys, glob_escape
from events.redis_adapter.reader import RedisEventReader


def _text(value: Any) -> Any:
    return value.decode() if isinstance(value, bytes) else value


def dump_read_models(client: Any, prefix: str) -> dict[str, Any]:
    """``{key: content}`` of every view, summary, lobby, player and ratings key under ``prefix``
    (not the streams, heads, snapshots or the feed). Hashes become dicts, sorted sets
    ``[(member, score)]`` lists in rank order, sets sorted lists."""
    keys = ReadModelKeys(prefix)
    patterns = [
        keys.views_pattern,
        glob_escape(prefix) + "game:{*}:summary",
        keys.lobby_pattern,
        glob_escape(prefix) + "player:{*}:*",
        glob_escape(prefix) + "ratings:{*}:*",
    ]
    out: dict[str, Any] = {}
    for pattern in patterns:
        for raw_key in client.scan_iter(match=pattern, count=1000):
            key = _text(raw_key)
            if key.startswith(prefix + "ratings:") and key.endswith(":gen"):
                continue  # the ratings' write counter: how often, not what (never reset)
            out[key] = _content(client, key)
    return out


def _content(client: Any, key: str) -> Any:
    kind = _text(client.type(key))
    if kind == "hash":
        return {_text(k): _text(v) for k, v in client.hgetall(key).items()}
    if kind == "zset":
        return [(_text(m), s) for m, s in client.zrange(key, 0, -1, withscores=True)]
    if kind == "set":
        return sorted(_text(m) for m in client.smembers(key))
    raise AssertionError(f"unexpected read-model key type {kind} at {key}")


def rebuilt_read_models(client: Any, prefix: str) -> dict[str, Any]:
    """Delete every read model under ``prefix``, rebuild them from the streams alone
    (``events.projections.rebuild``) and return their dump."""
    updater = Updater(RedisEventReader(client, prefix=prefix), ReadModels(client, prefix))
    rebuild(updater, client)
    return dump_read_models(client, prefix)
