"""The hash chain: sealing batches into stored text, and verifying stored histories.

Pure (no Redis, no clock: time and keys are arguments):

- :mod:`~events.chain.sealing` -- a batch of engine events as stored, hash-chained
  envelope text, hidden parts entering the chain only through salted commitments;
- :mod:`~events.chain.batch` -- preparing an append: validate, seal, build the
  idempotency record (the Redis store sends the outcome to its script);
- :mod:`~events.chain.verify` -- where a stored history first stops being a valid chain.

Guarantees: each event's ``prev_hash`` is the previous one's ``hash``; an edited
event is reported at exactly its own version; without the game's secret seed no
hash or digest lets anyone test a guess about a hidden part.
"""
