"""The stored-event model: what an event is once stored, and who may see it.

Pure (no Redis, no I/O but the environment read by :mod:`events.model.defaults`):

- :mod:`~events.model.envelope` -- an engine event plus the metadata the store adds;
- :mod:`~events.model.canonical` -- the canonical JSON that is stored and hashed;
- :mod:`~events.model.redaction` -- an event as one viewer may see it (every read path);
- :mod:`~events.model.upcasting` -- older stored events read as the current schema;
- :mod:`~events.model.port` -- the :class:`~events.model.port.EventStore` protocol and
  the values it exchanges (what ``service`` depends on);
- :mod:`~events.model.errors` -- the store's typed failures (no HTTP);
- :mod:`~events.model.records` -- ``GameCreated``/``SeedRevealed``: the committed seed;
- :mod:`~events.model.clock` -- where timestamps come from;
- :mod:`~events.model.defaults` -- the store's defaults and environment variables.

Guarantees: the canonical form never changes; no read path returns a hidden fact
to a viewer who may not see it (redaction), nor a secret seed.
"""
