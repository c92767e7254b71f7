"""Board layouts as data, compiled once at import into lookup tables.

A :class:`LayoutSpec` is plain data (field names only) so another layout can be
added as a game option without touching code. :func:`compile_layout` turns it
into a :class:`Board`: field indices, per-field flags and the precomputed rays
that the move generator walks. Field index = ``rank * files + file`` (0-based).

Guarantees of a compiled board: every target field carries exactly one colour;
blocked, target and start fields are disjoint; each colour has exactly
``EARS_PER_COLOUR`` target fields listed in the layout's edge order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from engine.schlitzohr.material import COLOURS, EARS, EARS_PER_COLOUR

FILE_LETTERS = "abcdefghijklmnopqrstuvwxyz"

# North, south, east, west as (file, rank) deltas. The order is irrelevant to the
# rules; it fixes the order in which legal steps are listed.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (0, -1), (1, 0), (-1, 0))


@dataclass(frozen=True, slots=True)
class LayoutSpec:
    """A layout as data: target fields per colour (in edge order), blocked and start fields."""

    name: str
    files: int
    ranks: int
    targets: tuple[tuple[str, tuple[str, ...]], ...]
    blocked: tuple[str, ...]
    starts: tuple[str, ...]


# eq=False: boards are singletons from LAYOUTS, so identity is equality (and cheap
# when states are compared).
@dataclass(frozen=True, slots=True, eq=False)
class Board:
    """A compiled layout. All tuples are indexed by field index (or colour index).

    ``reach[f][d]`` lists, in order, the fields a step from ``f`` in direction ``d``
    could end on if no ear stood in the way: it stops before a blocked field and at
    (including) the first target field, since a step may end on a target but never
    pass one. ``line[f][d]`` is the plain geometric ray to the board's edge, used to
    explain why an illegal step is illegal.
    """

    name: str
    files: int
    ranks: int
    names: tuple[str, ...]
    index: Mapping[str, int]  # field name -> index (read-only)
    blocked: tuple[bool, ...]
    target_colour: tuple[int, ...]  # colour index, or -1 for a non-target field
    targets_of: tuple[tuple[int, ...], ...]  # per colour, in edge order
    starts: tuple[int, ...]
    reach: tuple[tuple[tuple[int, ...], ...], ...]
    line: tuple[tuple[tuple[int, ...], ...], ...]

    def coords(self, field: int) -> tuple[int, int]:
        """``(file, rank)`` of a field index."""
        return field % self.files, field // self.files

    def is_grey(self, field: int) -> bool:
        """Neither blocked nor a target (start fields are grey too)."""
        return not self.blocked[field] and self.target_colour[field] < 0


def field_name(file: int, rank: int) -> str:
    """Chess-style name: file letter, then 1-based rank (``e5``)."""
    return f"{FILE_LETTERS[file]}{rank + 1}"


def _ray(spec: LayoutSpec, field: int, delta: tuple[int, int]) -> tuple[int, ...]:
    file, rank = field % spec.files, field // spec.files
    out: list[int] = []
    while True:
        file, rank = file + delta[0], rank + delta[1]
        if not (0 <= file < spec.files and 0 <= rank < spec.ranks):
            return tuple(out)
        out.append(rank * spec.files + file)


def _reach(
    ray: tuple[int, ...], blocked: tuple[bool, ...], target: tuple[int, ...]
) -> tuple[int, ...]:
    out: list[int] = []
    for field in ray:
        if blocked[field]:
            break
        out.append(field)
        if target[field] >= 0:
            break
    return tuple(out)


def compile_layout(spec: LayoutSpec) -> Board:
    """Build the lookup tables of ``spec``. Raises ValueError if the data is inconsistent."""
    size = spec.files * spec.ranks
    names = tuple(field_name(i % spec.files, i // spec.files) for i in range(size))
    index = {name: i for i, name in enumerate(names)}

    def fields_of(listed: tuple[str, ...]) -> tuple[int, ...]:
        unknown = [name for name in listed if name not in index]
        if unknown:
            raise ValueError(f"layout {spec.name}: no field {unknown[0]!r} on this board")
        return tuple(index[name] for name in listed)

    blocked = [False] * size
    for field in fields_of(spec.blocked):
        blocked[field] = True
    target = [-1] * size
    targets_of = tuple(fields_of(listed) for _, listed in spec.targets)
    if [colour for colour, _ in spec.targets] != list(COLOURS):
        raise ValueError(f"layout {spec.name}: targets must be given for {COLOURS} in order")
    for colour, fields in enumerate(targets_of):
        for field in fields:
            target[field] = colour
    if (
        any(len(fields) != EARS_PER_COLOUR for fields in targets_of)
        or target.count(-1) != size - EARS
    ):
        raise ValueError(f"layout {spec.name}: needs {EARS_PER_COLOUR} distinct targets per colour")
    if any(blocked[f] for f in range(size) if target[f] >= 0):
        raise ValueError(f"layout {spec.name}: a field is both blocked and a target")
    starts = fields_of(spec.starts)
    if len(set(starts)) != EARS or any(blocked[f] or target[f] >= 0 for f in starts):
        raise ValueError(f"layout {spec.name}: needs {EARS} distinct grey start fields")
    lines = tuple(tuple(_ray(spec, f, d) for d in DIRECTIONS) for f in range(size))
    blocked_t, target_t = tuple(blocked), tuple(target)
    return Board(
        name=spec.name,
        files=spec.files,
        ranks=spec.ranks,
        names=names,
        index=MappingProxyType(index),
        blocked=blocked_t,
        target_colour=target_t,
        targets_of=targets_of,
        starts=starts,
        reach=tuple(tuple(_reach(ray, blocked_t, target_t) for ray in rays) for rays in lines),
        line=lines,
    )


CLASSIC_9X9 = LayoutSpec(
    name="classic-9x9",
    files=9,
    ranks=9,
    targets=(
        ("red", ("c1", "d1", "f1", "g1")),  # south edge
        ("blue", ("a3", "a4", "a6", "a7")),  # west edge
        ("green", ("c9", "d9", "f9", "g9")),  # north edge
        ("yellow", ("i3", "i4", "i6", "i7")),  # east edge
    ),
    blocked=("e1", "a5", "e9", "i5"),
    # The 16 fields at (Chebyshev) distance 2 from e5, rank by rank, west to east.
    # Ear id i starts on starts[i].
    starts=tuple("c3 d3 e3 f3 g3 c4 g4 c5 g5 c6 g6 c7 d7 e7 f7 g7".split()),
)

LAYOUTS: dict[str, Board] = {spec.name: compile_layout(spec) for spec in (CLASSIC_9X9,)}
"""Every selectable layout by name (the ``layout`` option's choices)."""

DEFAULT_LAYOUT = CLASSIC_9X9.name
