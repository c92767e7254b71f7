"""Legal commands in compact form: a command that picks k of n items is described once.

A game's *compact* legal list holds two kinds of items:

- a plain command (``{"kind": "roll"}``), exactly as in the enumerated list;
- a *choice*: the command's fixed fields plus ``"choose"``, which stands for every
  command that puts ``count`` distinct items of ``from`` into ``field``::

      {"kind": "inspect",
       "choose": {"field": "ears", "from": [3, 5, 8, 9], "count": 2, "order": "ascending"}}

  ``from`` is ascending; ``order: "ascending"`` says the chosen items must be sent in
  ascending order (the only order ``decide`` accepts), so the choice stands for exactly
  ``C(len(from), count)`` commands, not for their permutations.

Guarantee: :func:`expand` is the *only* way the enumerated form is made from the compact
one, and each game's ``legal_commands`` is ``expand(legal_choices(...))``, so the two forms
cannot disagree. Expansion keeps the list's order; a choice expands in place to its
combinations in lexicographic order (``itertools.combinations`` over ``from``).

Pure: no I/O. A choice is plain JSON, safe to send to clients as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from engine.model import JSON

CHOOSE = "choose"
"""The key that marks a choice in a compact list."""

ASCENDING = "ascending"
"""The one order choices know: chosen items are sent in ascending order."""


def choice(kind: str, field: str, items: Iterable[int], count: int, **fixed: Any) -> JSON:
    """A choice of ``count`` of ``items`` (sorted here) for ``field`` of a ``kind`` command,
    whose other fields are ``fixed``. ValueError if ``count`` exceeds the items or is < 0,
    or if an item repeats (a choice of distinct items only)."""
    pool = sorted(items)
    if len(set(pool)) != len(pool):
        raise ValueError("a choice's items must be distinct")
    if not 0 <= count <= len(pool):
        raise ValueError(f"cannot choose {count} of {len(pool)} items")
    return {
        "kind": kind,
        **fixed,
        CHOOSE: {"field": field, "from": pool, "count": count, "order": ASCENDING},
    }


def is_choice(item: Mapping[str, Any]) -> bool:
    """Whether a compact item is a choice (else it is a plain command)."""
    return CHOOSE in item


def expand_one(item: Mapping[str, Any]) -> list[JSON]:
    """The commands one compact item stands for (a plain command: itself, copied)."""
    spec = item.get(CHOOSE)
    if spec is None:
        return [dict(item)]
    base = {k: v for k, v in item.items() if k != CHOOSE}
    field: str = spec["field"]
    pool: Sequence[int] = spec["from"]
    return [{**base, field: list(picked)} for picked in combinations(pool, spec["count"])]


def expand(compact: Iterable[Mapping[str, Any]]) -> list[JSON]:
    """The enumerated legal list: every item of ``compact`` expanded in place, in order.
    Plain commands are passed on as they are, not copied (this runs in every bot
    playout; callers build fresh lists and never share their items)."""
    out: list[JSON] = []
    for item in compact:
        if CHOOSE in item:
            out.extend(expand_one(item))
        else:
            out.append(item)  # type: ignore[arg-type]
    return out
