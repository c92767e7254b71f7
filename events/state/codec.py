"""Engine states to JSON and back, for snapshots -- without pickle.

Redis content is data, not trusted code, so decoding constructs only: JSON
scalars, tuples, lists, dicts, sets and frozensets, and instances of dataclasses,
named tuples and enums *defined in modules under* ``engine.`` -- plus shared
constants registered as :class:`Constant` (e.g. a compiled board, stored by name).

Encoding (``$`` marks a tagged object; a dict whose keys are all strings other
than ``"$"`` stays a plain JSON object)::

    tuple -> [..]                       list -> {"$": "list", "v": [..]}
    frozenset -> {"$": "fset", "v": [..]}  set -> {"$": "set", "v": [..]}
    other dict -> {"$": "map", "v": [[k, v], ..]}
    dataclass -> {"$": "dc", "c": "engine.x:Cls", "v": {field: value}}
    named tuple -> {"$": "nt", "c": "engine.x:Cls", "v": [..]}
    enum -> {"$": "enum", "c": "engine.x:Cls", "v": value}
    constant -> {"$": "const", "c": "engine.x:Cls", "v": name}

Guarantee: ``decode(encode(s)) == s`` for any state built from these types (set
members are sorted when comparable, so equal states encode to equal text).
Failure modes: :class:`~events.model.errors.SnapshotError` for an unsupported value on
encode, and for malformed input or a class outside ``engine.`` on decode.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from events.model.errors import SnapshotError

ALLOWED_PREFIX = "engine."
_NAME = r"[A-Za-z][A-Za-z0-9_]*"  # no leading underscore: no dunders, no private names
_PATH = re.compile(rf"(engine(?:\.{_NAME})+):({_NAME}(?:\.{_NAME})*)")


@dataclass(frozen=True, slots=True)
class Constant:
    """Instances of ``cls`` are shared constants: stored as ``name_of(x)``, loaded by ``lookup``."""

    cls: type
    name_of: Callable[[Any], str]
    lookup: Callable[[str], Any]


def class_path(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


class StateCodec:
    """Encodes and decodes states; build one per set of constants and reuse it."""

    def __init__(self, constants: Iterable[Constant] = ()) -> None:
        self._constants = {c.cls: c for c in constants}
        self._by_path = {class_path(c.cls): c for c in self._constants.values()}
        self._classes: dict[str, type] = {}

    def encode(self, state: Any) -> str:
        """The JSON text of ``state``."""
        try:
            return json.dumps(self._enc(state), separators=(",", ":"), ensure_ascii=False)
        except (TypeError, ValueError, RecursionError) as exc:
            raise SnapshotError(f"cannot encode state: {exc}") from exc

    def decode(self, text: str | bytes) -> Any:
        """The state encoded in ``text``."""
        try:
            return self._dec(json.loads(text))
        except SnapshotError:
            raise
        except (TypeError, ValueError, KeyError, AttributeError, RecursionError) as exc:
            raise SnapshotError(f"cannot decode state: {exc!r}") from exc

    def _enc(self, x: Any) -> Any:
        kind = type(x)
        if x is None or kind in (bool, int, str, float):
            return x
        if kind is tuple:
            return [self._enc(v) for v in x]
        if kind is dict:
            if all(type(k) is str for k in x) and "$" not in x:
                return {k: self._enc(v) for k, v in x.items()}
            return {"$": "map", "v": [[self._enc(k), self._enc(v)] for k, v in x.items()]}
        if kind is list:
            return {"$": "list", "v": [self._enc(v) for v in x]}
        if kind in (frozenset, set):
            return {
                "$": "fset" if kind is frozenset else "set",
                "v": [self._enc(v) for v in _ordered(x)],
            }
        return self._enc_object(x, kind)

    def _enc_object(self, x: Any, kind: type) -> Any:
        if kind in self._constants:
            return {"$": "const", "c": class_path(kind), "v": self._constants[kind].name_of(x)}
        if not kind.__module__.startswith(ALLOWED_PREFIX):
            raise TypeError(f"{class_path(kind)} is not an engine type")
        if isinstance(x, enum.Enum):
            return {"$": "enum", "c": class_path(kind), "v": self._enc(x.value)}
        if isinstance(x, tuple) and hasattr(kind, "_fields"):
            return {"$": "nt", "c": class_path(kind), "v": [self._enc(v) for v in x]}
        if dataclasses.is_dataclass(x):
            fields = {f.name: self._enc(getattr(x, f.name)) for f in dataclasses.fields(x)}
            return {"$": "dc", "c": class_path(kind), "v": fields}
        raise TypeError(f"cannot encode a {class_path(kind)}")

    def _dec(self, x: Any) -> Any:
        if isinstance(x, list):
            return tuple(self._dec(v) for v in x)
        if not isinstance(x, dict):
            return x
        tag = x.get("$")
        if tag is None:
            return {k: self._dec(v) for k, v in x.items()}
        value = x["v"]
        if tag == "list":
            return [self._dec(v) for v in value]
        if tag in ("fset", "set"):
            items = (self._dec(v) for v in value)
            return frozenset(items) if tag == "fset" else set(items)
        if tag == "map":
            return {self._dec(k): self._dec(v) for k, v in value}
        return self._dec_object(tag, x["c"], value)

    def _dec_object(self, tag: str, path: str, value: Any) -> Any:
        if tag == "const":
            if path not in self._by_path:
                raise SnapshotError(f"{path!r} is not a registered constant")
            return self._by_path[path].lookup(value)
        cls = self._engine_class(path)
        if tag == "enum" and issubclass(cls, enum.Enum):
            return cls(self._dec(value))
        if tag == "nt" and issubclass(cls, tuple) and hasattr(cls, "_fields"):
            return cls(*(self._dec(v) for v in value))
        if tag == "dc" and dataclasses.is_dataclass(cls):
            return _build_dataclass(cls, {k: self._dec(v) for k, v in value.items()})
        raise SnapshotError(f"tag {tag!r} does not fit {path!r}")

    def _engine_class(self, path: str) -> type:
        cls = self._classes.get(path)
        if cls is None:
            match = _PATH.fullmatch(path) if isinstance(path, str) else None
            if match is None:
                raise SnapshotError(f"{path!r} is not a class under {ALLOWED_PREFIX}")
            found: Any = importlib.import_module(match[1])
            for part in match[2].split("."):
                found = getattr(found, part)
            if not isinstance(found, type) or not found.__module__.startswith(ALLOWED_PREFIX):
                raise SnapshotError(f"{path!r} is not an engine class")
            cls = self._classes[path] = found
        return cls


def _build_dataclass(cls: type, values: dict[str, Any]) -> Any:
    """An instance of ``cls`` with exactly ``values``: init fields through the
    constructor (so its checks run), the rest set as the frozen dataclass would."""
    fields = dataclasses.fields(cls)
    if {f.name for f in fields} != set(values):
        raise SnapshotError(f"fields of {class_path(cls)} do not match the snapshot")
    obj = cls(**{f.name: values[f.name] for f in fields if f.init})
    for f in fields:
        if not f.init:
            object.__setattr__(obj, f.name, values[f.name])
    return obj


def _ordered(items: Iterable[Any]) -> list[Any]:
    """Set members in a stable order: sorted when comparable, else as iterated."""
    try:
        return sorted(items)
    except TypeError:
        return list(items)
