"""The event store: envelopes, schemas, the Redis Streams store, snapshots, redaction.

Depends on ``engine`` only; ``service`` and ``workers`` depend on it. Start with
:mod:`events.port` (the store's contract), :mod:`events.keys` (the Redis key
schema) and :mod:`events.redaction` (who may see what).
"""
