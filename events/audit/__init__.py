"""Audit and replay of whole game histories (issue 6): pure over stored envelopes,
plus export and import against the store.

- :mod:`events.audit.verify` -- :func:`verify_history` / :func:`verify_lines`: the hash
  chain, the seed commitment, every random outcome and every event re-computed by
  the rules, the final scores. Returns a :class:`~events.audit.report.Report` naming
  the first discrepancy (its version and kind), never raises for bad input.
- :mod:`events.audit.replay` -- the table and a viewer's view at any version.
- :mod:`events.audit.export` -- a game's history as JSON Lines, complete once the game
  has ended (or for an admin), redacted for the caller before that.
- :mod:`events.audit.importing` -- load a verified, finished export into a store.

See ``docs/audit.md`` for the file format, the checks and the CLI commands.
"""
