"""Engine states from the store: snapshots, loading, and views of a loaded table.

- :mod:`~events.state.codec` -- engine states to JSON and back, without pickle
  (decoding constructs only ``engine`` types and registered constants);
- :mod:`~events.state.snapshots` -- encoding snapshots, deciding when one is due;
- :mod:`~events.state.loading` -- a game's state or table: latest snapshot + the
  events after it, through the :class:`~events.model.port.EventStore` protocol;
- :mod:`~events.state.clockview` -- a turn clock as views show it.

Guarantee: loading returns the same state as folding the whole history; a
snapshot is only a cache (ignored when written under other rules or undecodable).
"""
