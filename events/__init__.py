"""The event store: envelopes, schemas, the Redis Streams store, snapshots, redaction.

Depends on ``engine`` only; ``service`` and ``workers`` depend on it. Map:

- :mod:`events.model` -- the stored-event model: the envelope, canonical JSON,
  redaction (who may see what), upcasting, the store's contract
  (:mod:`events.model.port`), its errors, game records, clock and defaults.
  Start here.
- :mod:`events.chain` -- the hash chain: sealing a batch into stored text,
  preparing an append, verifying a stored history.
- :mod:`events.state` -- engine states from the store: the snapshot codec,
  snapshots, loading a game (snapshot + events after it), turn-clock views.
- :mod:`events.redis_adapter` -- the store on Redis Streams: the key schema, the
  Lua scripts, reader and store, the projection feed, starting a ``redis-server``.
- :mod:`events.schemas` -- JSON Schemas of every event type.
- :mod:`events.projections` -- read models built from the feed.
- :mod:`events.audit` -- exporting, verifying, replaying and importing histories.
- :mod:`events.archive` -- finished games moved out of Redis into SQL.
- :mod:`events.accounts` -- player accounts and names.
"""
