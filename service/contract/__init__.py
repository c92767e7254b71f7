"""The generated part of the published contract (``openapi.yaml``).

One source of truth: the schemas of commands, options and events that a client sees
in ``openapi.yaml`` are generated from the definitions the server validates with --
the engines' :class:`engine.model.CommandSpec` / :class:`engine.model.OptionSpec`
and the marshmallow event schemas of ``events/schemas`` -- plus the table of problem
codes (``problem_codes``). ``tabletop contract`` rewrites the generated block of
``openapi.yaml``; ``tabletop contract --check`` (and ``tests/unit/test_contract_generated.py``)
fails when the committed file differs from a fresh generation.
"""
