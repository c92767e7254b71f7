"""Validation of game options against their :class:`OptionSpec` list.

Guarantee: :func:`validate_options` returns a complete dict (defaults filled in)
or raises :class:`RuleViolation` ``invalid_option`` naming the offending option;
unknown option names are rejected, never ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from engine.errors import INVALID_OPTION, RuleViolation
from engine.model import OptionSpec


def validate_options(specs: Iterable[OptionSpec], raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """Check ``raw`` against ``specs`` and fill in defaults."""
    by_name = {spec.name: spec for spec in specs}
    raw = dict(raw or {})
    unknown = sorted(set(raw) - set(by_name))
    if unknown:
        raise RuleViolation(
            INVALID_OPTION, f"unknown option {unknown[0]!r}", {"option": unknown[0], "known": sorted(by_name)}
        )
    return {name: _check(spec, raw.get(name, spec.default)) for name, spec in by_name.items()}


def _check(spec: OptionSpec, value: Any) -> Any:
    def bad(why: str) -> RuleViolation:
        return RuleViolation(INVALID_OPTION, f"option {spec.name!r} {why}", {"option": spec.name, **spec.to_json()})

    if spec.type == "bool":
        if not isinstance(value, bool):
            raise bad("must be true or false")
    elif spec.type == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise bad("must be an integer")
        if spec.minimum is not None and value < spec.minimum:
            raise bad(f"must be at least {spec.minimum}")
        if spec.maximum is not None and value > spec.maximum:
            raise bad(f"must be at most {spec.maximum}")
    elif spec.type == "choice":
        if value not in spec.choices:
            raise bad(f"must be one of {', '.join(spec.choices)}")
    else:  # pragma: no cover - a programming error in a game's spec list
        raise ValueError(f"unknown option type {spec.type!r}")
    return value
