"""A local 3-master Redis Cluster for tests, set up from Python (no redis-cli).

Each node is a :class:`RedisServer` with ``cluster-enabled yes`` in a temp dir of
its own. Slots are split evenly with CLUSTER ADDSLOTS (Redis 6.2 has no
ADDSLOTSRANGE), the nodes are introduced with CLUSTER MEET, and :func:`start_cluster`
returns once every node reports ``cluster_state:ok``.
"""

from __future__ import annotations

import time
from typing import Any

from redis.cluster import RedisCluster

from events.redis_adapter.server import RedisServer

SLOTS = 16384


class LocalCluster:
    """Running cluster nodes; :meth:`client` gives a ``RedisCluster`` client."""

    def __init__(self, nodes: list[RedisServer]) -> None:
        self.nodes = nodes

    def client(self, **kwargs: Any) -> RedisCluster:
        first = self.nodes[0]
        return RedisCluster(host=first.host, port=first.port, **kwargs)

    def close(self) -> None:
        for node in self.nodes:
            node.close()


def start_cluster(masters: int = 3, timeout: float = 20.0) -> LocalCluster:
    """Start ``masters`` nodes and join them into one cluster covering all slots."""
    config = {
        "cluster-enabled": "yes",
        "cluster-config-file": "nodes.conf",
        "cluster-node-timeout": "2000",
    }
    nodes: list[RedisServer] = []
    try:
        for _ in range(masters):
            nodes.append(RedisServer(config=config).start())
        _join(nodes, timeout)
    except BaseException:
        for node in nodes:
            node.close()
        raise
    return LocalCluster(nodes)


def _join(nodes: list[RedisServer], timeout: float) -> None:
    clients = [node.client(decode_responses=True) for node in nodes]
    share = SLOTS // len(nodes)
    for i, client in enumerate(clients):
        # Distinct epochs up front spare the nodes a round of epoch collision handling.
        client.execute_command("CLUSTER", "SET-CONFIG-EPOCH", i + 1)
        last = SLOTS if i == len(nodes) - 1 else (i + 1) * share
        client.execute_command("CLUSTER", "ADDSLOTS", *range(i * share, last))
    for node in nodes[1:]:
        clients[0].execute_command("CLUSTER", "MEET", node.host, node.port)
    deadline = time.monotonic() + timeout
    while not all(_ready(c, len(nodes)) for c in clients):
        if time.monotonic() > deadline:
            raise RuntimeError("the test cluster did not reach cluster_state:ok")
        time.sleep(0.05)
    for client in clients:
        client.close()


def _ready(client: Any, nodes: int) -> bool:
    info = client.execute_command("CLUSTER", "INFO")
    text = info if isinstance(info, str) else info.decode()
    fields = dict(line.split(":", 1) for line in text.split() if ":" in line)
    return fields.get("cluster_state") == "ok" and fields.get("cluster_known_nodes") == str(nodes)
