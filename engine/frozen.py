"""A fast ``dataclasses.replace`` for the engine's frozen state dataclasses.

``evolve`` builds a new state for every event of every replay, playout and bot
simulation; the generic ``dataclasses.replace`` inspects the class's fields on
every call, which measured as the largest single cost of a fold.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")


def replacer(cls: type[T]) -> Callable[..., T]:
    """``updated(obj, **changes)``: a copy of ``obj`` (a ``cls``, a dataclass whose
    fields are all ``__init__`` parameters, in order) with ``changes`` applied.
    An unknown field name raises KeyError."""
    names = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
    index = {name: i for i, name in enumerate(names)}
    all_fields = attrgetter(*names)

    def updated(obj: T, **changes: Any) -> T:
        values = list(all_fields(obj))
        for name, value in changes.items():
            values[index[name]] = value
        return cls(*values)

    return updated
