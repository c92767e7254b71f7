"""``tabletop health PART...``: exit 0 if every part named is healthy on this host (container checks).

- ``api``: ``GET <url>/healthz`` answers 200 (``--url``; default: the API URL that
  ``tabletop up`` recorded in ``<--data-dir>/service.json``, else ``http://127.0.0.1:8000``);
- ``worker``: a bot worker of this host refreshed its heartbeat (``<p>worker:alive:<name>``,
  ``workers/rq_worker.py``) within its 5 s TTL -- a dead worker, or one cut off from
  Redis, drops out within 5 s; the message says which workers RQ still lists but whose
  heartbeat stopped (dead, or alive but disconnected from Redis: see its log);
- ``sweeper``: the sweeper's heartbeat key (``<p>sweeper:alive``) exists;
- ``beat``: this container's process touched its liveness file (``TABLETOP_LIVENESS_FILE``,
  ``service/runner/liveness.py``) within 5 s: it runs -- not stopped, not frozen, not
  deadlocked -- whether or not Redis answers (the projector's check: it has no port);
- ``redis``: Redis answers PING (also the projector's check: it has no port of its own),
  and would never evict a key (:func:`eviction_check`); on a cluster
  (``redis+cluster://``) every master must.

The Redis checked: ``--redis-url``, else ``TABLETOP_REDIS_URL``, ``REDIS_URL``, the one
``tabletop up`` recorded in the data directory, ``redis://127.0.0.1:6379/0``; ``worker``
looks on RQ's Redis (``TABLETOP_QUEUE_REDIS_URL`` when set, else that one).
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import urllib.request
from pathlib import Path
from typing import Any

from redis.cluster import ClusterNode, RedisCluster
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rq import Queue, Worker

from events.redis_adapter.keys import SWEEPER_ALIVE, prefixed
from service.bootstrap import redis_client
from service.cli.store_options import add_data_dir_argument
from service.runner.datadir import resolve_api_url, resolve_redis_url
from service.runner.liveness import BEAT_FRESH_S, LIVENESS_FILE_ENV, beat_age
from service.settings import Settings
from workers.rq_worker import live_workers

PARTS = ("api", "worker", "sweeper", "redis", "beat")
"""What `tabletop health` can check (see the module docstring)."""


def add_parser(sub: Any) -> None:
    p = sub.add_parser("health", help="check parts of this host (for container health checks)")
    p.add_argument(
        "parts", nargs="+", choices=PARTS, metavar="part", help=f"one or more of {', '.join(PARTS)}: healthy if all are"
    )
    p.add_argument(
        "--url",
        help="the API's base URL (part api; default: the one tabletop up recorded, else"
        " http://127.0.0.1:8000)",
    )
    p.add_argument(
        "--redis-url",
        help="Redis to check (default: TABLETOP_REDIS_URL, REDIS_URL, then the one"
        " tabletop up recorded in the data directory)",
    )
    add_data_dir_argument(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check every part named, one line each; exit 0 only if all are healthy."""
    all_healthy = True
    for part in args.parts:
        try:
            healthy, detail = _check(part, args)
        except Exception as exc:  # noqa: BLE001 - any failure to check is unhealthy, with its reason
            healthy, detail = False, f"{type(exc).__name__}: {exc}"
        print(
            f"{part}: {'ok' if healthy else 'unhealthy'} ({detail})",
            file=sys.stdout if healthy else sys.stderr,
        )
        all_healthy = all_healthy and healthy
    return 0 if all_healthy else 1


def _check(part: str, args: argparse.Namespace) -> tuple[bool, str]:
    if part == "api":
        url = resolve_api_url(args.url, args.data_dir)
        with urllib.request.urlopen(f"{url}/healthz", timeout=3) as response:
            return response.status == 200, f"HTTP {response.status}"
    if part == "beat":
        return beat_check(os.environ.get(LIVENESS_FILE_ENV, ""))
    settings = Settings.from_env()
    store_url = resolve_redis_url(args.redis_url, args.data_dir).url
    if part == "worker":  # RQ's own Redis (TABLETOP_QUEUE_REDIS_URL), else the store's
        return _worker_check(redis_client(settings.queue_redis_url or store_url), settings)
    client = redis_client(store_url)
    if part == "redis":
        if isinstance(client, RedisCluster):
            return _cluster_check(client)
        client.ping()
        return eviction_check(client)
    if part == "sweeper":
        return client.exists(prefixed(settings.key_prefix, SWEEPER_ALIVE)) == 1, "heartbeat key"
    raise ValueError(f"unknown part {part!r}")


def beat_check(path: str) -> tuple[bool, str]:
    """Healthy if the liveness file ``path`` was touched within ``BEAT_FRESH_S``."""
    if not path:
        return False, f"{LIVENESS_FILE_ENV} is not set: the process does not beat"
    age = beat_age(Path(path))
    if age is None:
        return False, f"no liveness file at {path} (the process has not started beating)"
    return age <= BEAT_FRESH_S, f"last beat {age:.1f} s ago (stale after {BEAT_FRESH_S:g} s)"


def _worker_check(client: Any, settings: Settings) -> tuple[bool, str]:
    try:
        return worker_check(client, settings.key_prefix, settings.queue_name, socket.gethostname())
    except (RedisConnectionError, RedisTimeoutError) as exc:
        return False, f"cannot reach Redis ({exc}): no worker can take or finish a bot turn"


def worker_check(client: Any, key_prefix: str, queue_name: str, host: str) -> tuple[bool, str]:
    """Healthy if a worker of ``host`` serving ``queue_name`` has a live heartbeat."""
    beats = live_workers(client, key_prefix)
    alive = [b for b in beats if b.get("host") == host and queue_name in b.get("queues", ())]
    if alive:
        return True, f"{len(alive)} live worker(s) of {host} on {queue_name}"
    queue = Queue(queue_name, connection=client)
    silent = [w.name for w in Worker.all(queue=queue) if w.hostname == host]
    if silent:
        return False, (
            f"no live worker of {host} on {queue_name}: heartbeat stopped for"
            f" {', '.join(silent)} (dead, or alive but disconnected from Redis: see its log)"
        )
    return False, f"no live worker of {host} on {queue_name}"


def _cluster_check(client: RedisCluster) -> tuple[bool, str]:
    """:func:`eviction_check` on every master of the cluster: healthy only if all are (a
    master that evicts loses the keys of its slots); one line naming each master."""
    healthy, details = True, []
    masters = client.get_primaries()
    for node in masters:
        client.ping(target_nodes=node)
        ok, detail = eviction_check(_NodeConfig(client, node))
        healthy = healthy and ok
        details.append(f"{node.name}: {detail}")
    return healthy, f"{len(masters)} masters: " + "; ".join(details)


class _NodeConfig:
    """``config_get`` of one node of a cluster, for :func:`eviction_check`."""

    def __init__(self, client: RedisCluster, node: ClusterNode) -> None:
        self._client = client
        self._node = node

    def config_get(self, name: str) -> Any:
        return self._client.config_get(name, target_nodes=self._node)


def eviction_check(client: Any) -> tuple[bool, str]:
    """Whether Redis may keep the store's keys: healthy unless it would evict one.

    - ``maxmemory-policy noeviction``: healthy (a full Redis refuses writes, loses nothing);
    - another policy with ``maxmemory`` set: **unhealthy** -- Redis would silently delete
      event streams, seeds or heads once memory is full, breaking histories for good;
    - another policy without ``maxmemory``: healthy with a warning (nothing is evicted
      until someone sets a limit, which the warning is there to prevent);
    - CONFIG refused (managed Redis often hides it): healthy with a warning: the
      operator must check the policy by hand.
    """
    try:
        policy = _config(client, "maxmemory-policy")
        limit = int(_config(client, "maxmemory") or 0)
    except Exception as exc:  # noqa: BLE001 - CONFIG may be renamed or forbidden
        return True, f"PING; warning: cannot read maxmemory-policy ({type(exc).__name__}), check it is noeviction"
    if policy == "noeviction":
        return True, "PING, maxmemory-policy noeviction"
    if limit > 0:
        return False, f"maxmemory-policy {policy} with maxmemory {limit}: Redis would evict the store's keys; set noeviction"
    return True, f"PING; warning: maxmemory-policy {policy} would evict keys once maxmemory is set; use noeviction"


def _config(client: Any, name: str) -> str:
    value = client.config_get(name).get(name)
    return value.decode() if isinstance(value, bytes) else str(value or "")
