"""The event store on Redis Streams (standalone or Cluster): the adapter of
:class:`events.model.port.EventStore`.

- :mod:`~events.redis_adapter.keys` -- the key schema: every key, built in one place;
- :mod:`~events.redis_adapter.scripts` -- the Lua scripts (append, snapshot);
- :mod:`~events.redis_adapter.reader` -- reading histories: ranges, whole, tails;
- :mod:`~events.redis_adapter.decode` -- stored stream entries to envelopes
  (upcast, redacted): the read hot path;
- :mod:`~events.redis_adapter.store` -- :class:`RedisEventStore`: the reader plus appends;
- :mod:`~events.redis_adapter.feed` -- the notification feed for the projector;
- :mod:`~events.redis_adapter.server` -- starting a real ``redis-server`` process.

Guarantees: every append is atomic (one Lua script; all of a batch or nothing,
optimistic version check); every key of one game shares its hash tag, so scripts
run unchanged on Cluster; every read path redacts for its viewer and never
returns a secret seed or a snapshot.
"""
