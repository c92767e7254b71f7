"""``tabletop health PART``: exit 0 if that part of this host is healthy (container checks).

- ``api``: ``GET <url>/healthz`` answers 200 (``--url``; default: the API URL that
  ``tabletop up`` recorded in ``<--data-dir>/service.json``, else ``http://127.0.0.1:8000``);
- ``worker``: an RQ worker of this host listens on the bot queue and sent a heartbeat
  within its TTL (RQ drops workers whose heartbeat expired);
- ``sweeper``: the sweeper's heartbeat key (``<p>sweeper:alive``) exists;
- ``redis``: Redis answers PING (also the projector's check: it has no port of its own),
  and would never evict a key (:func:`eviction_check`).

The Redis checked: ``--redis-url``, else ``TABLETOP_REDIS_URL``, ``REDIS_URL``, the one
``tabletop up`` recorded in the data directory, ``redis://127.0.0.1:6379/0``.
"""

from __future__ import annotations

import argparse
import socket
import sys
import urllib.request
from typing import Any

from rq import Queue, Worker

from events.keys import SWEEPER_ALIVE, prefixed
from service.bootstrap import redis_client
from service.cli.store_options import add_data_dir_argument
from service.runner.datadir import resolve_api_url, resolve_redis_url
from service.settings import Settings


def add_parser(sub: Any) -> None:
    p = sub.add_parser("health", help="check one part of this host (for container health checks)")
    p.add_argument("part", choices=("api", "worker", "sweeper", "redis"))
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
    try:
        healthy, detail = _check(args)
    except Exception as exc:  # any failure to check is unhealthy, with its reason
        healthy, detail = False, f"{type(exc).__name__}: {exc}"
    print(
        f"{args.part}: {'ok' if healthy else 'unhealthy'} ({detail})",
        file=sys.stdout if healthy else sys.stderr,
    )
    return 0 if healthy else 1


def _check(args: argparse.Namespace) -> tuple[bool, str]:
    part = args.part
    if part == "api":
        url = resolve_api_url(args.url, args.data_dir)
        with urllib.request.urlopen(f"{url}/healthz", timeout=3) as response:
            return response.status == 200, f"HTTP {response.status}"
    settings = Settings.from_env()
    client = redis_client(resolve_redis_url(args.redis_url, args.data_dir).url)
    if part == "redis":
        client.ping()
        return eviction_check(client)
    if part == "sweeper":
        return client.exists(prefixed(settings.key_prefix, SWEEPER_ALIVE)) == 1, "heartbeat key"
    queue = Queue(settings.queue_name, connection=client)
    here = socket.gethostname()
    mine = [w.name for w in Worker.all(queue=queue) if w.hostname == here]
    return bool(mine), f"{len(mine)} worker(s) of {here} on {settings.queue_name}"


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
