"""Fast acceptance checks compiled from the marshmallow event schemas.

:func:`compile_schema` turns a schema into a predicate that answers True only for
data marshmallow certainly accepts -- and False whenever it is unsure, so the
registry then asks marshmallow, which stays the authority on every refusal and
on its error messages. Sound, not complete: ``predicate(x)`` implies
``schema.validate(x) == {}`` (``tests/integration/test_store_schemas.py`` checks
that on real games and on mutations of them).

Why: an event whose canonical text the registry has not seen yet costs a
marshmallow validation (~20 µs) on the append hot path; the predicate costs ~1 µs.

What compiles (anything else makes :func:`compile_schema` return None, and the
registry keeps using marshmallow alone): schemas without hooks (no
``@validates_schema``, pre/post-load) that raise on unknown fields, whose fields
are exactly ``fields.Integer``, ``String``, ``List``, ``Dict``, ``Nested`` or
``events.schemas.fields.Card`` or ``StrictBool``, with no validators but ``Range``, ``OneOf``,
``Regexp`` and ``Length``. Each check is narrower than marshmallow's (e.g. an
integer must be an ``int``, a list a list or tuple), never wider.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from marshmallow import RAISE, Schema, fields, validate

from events.schemas.fields import Card, StrictBool

Check = Callable[[Any], bool]


class _Unsupported(Exception):
    """A schema or field this module cannot check as marshmallow would."""


def compile_schema(schema: Schema) -> Check | None:
    """A predicate accepting only data ``schema`` accepts, or None if it can't be built."""
    try:
        return _schema_check(schema)
    except (_Unsupported, AttributeError):  # AttributeError: a marshmallow we don't know
        return None


def _schema_check(schema: Schema) -> Check:
    if any(schema._hooks.values()) or schema.unknown != RAISE or schema.many:
        raise _Unsupported(schema)
    if schema.only is not None or schema.exclude or schema.partial or schema.dump_only:
        raise _Unsupported(schema)
    known: set[str] = set()
    required: list[str] = []
    checks: list[tuple[str, Check]] = []
    for name, field in schema.fields.items():
        if field.load_only or field.dump_only:
            raise _Unsupported(field)
        key = field.data_key or name
        known.add(key)
        if field.required:
            required.append(key)
        checks.append((key, _field_check(field)))

    def check(data: Any) -> bool:
        if type(data) is not dict or not known.issuperset(data):
            return False
        for key in required:
            if key not in data:
                return False
        for key, field_ok in checks:
            if key in data and not field_ok(data[key]):
                return False
        return True

    return check


def _field_check(field: fields.Field) -> Check:  # type: ignore[type-arg]
    """The value check of one field, ``None`` included (allowed only with allow_none)."""
    value_ok = _value_check(field)
    if not field.allow_none:
        return value_ok
    return lambda value: value is None or value_ok(value)


def _value_check(field: fields.Field) -> Check:  # type: ignore[type-arg]
    # type(field) is ..., not isinstance: a subclass may change what the field takes;
    # spelled out in each test (not via a local) so that mypy narrows ``field``.
    if type(field) is fields.Integer:
        base: Check = lambda value: type(value) is int  # noqa: E731 - bools are not ints here
    elif type(field) is fields.String:
        base = lambda value: type(value) is str  # noqa: E731
    elif type(field) is Card:
        if field.validators:
            raise _Unsupported(field)
        # As Card._deserialize: "X", or an int 1..13 (never a bool).
        return lambda v: v == "X" if type(v) is str else type(v) is int and 1 <= v <= 13
    elif type(field) is StrictBool:
        base = lambda value: type(value) is bool  # noqa: E731 - as StrictBool._deserialize
    elif type(field) is fields.List:
        inner = _field_check(field.inner)
        base = lambda value: type(value) in (list, tuple) and all(map(inner, value))  # noqa: E731
    elif type(field) is fields.Dict:
        keys_ok = _field_check(field.key_field) if field.key_field else _anything
        values_ok = _field_check(field.value_field) if field.value_field else _anything
        base = lambda value: (  # noqa: E731
            type(value) is dict and all(map(keys_ok, value)) and all(map(values_ok, value.values()))
        )
    elif type(field) is fields.Nested:
        if (
            field.many
            or field.only is not None
            or field.exclude
            or field.unknown not in (None, RAISE)
            or not isinstance(field.schema, Schema)
        ):
            raise _Unsupported(field)
        base = _schema_check(field.schema)
    else:
        raise _Unsupported(field)
    validators = [_validator_check(v) for v in field.validators]
    if not validators:
        return base
    if len(validators) == 1:
        [valid] = validators
        return lambda value: base(value) and valid(value)
    return lambda value: base(value) and all(ok(value) for ok in validators)


def _validator_check(validator: Any) -> Check:
    kind = type(validator)
    if kind is validate.Range:
        lo, hi = validator.min, validator.max
        if not (validator.min_inclusive and validator.max_inclusive):
            raise _Unsupported(validator)
        return lambda v: (lo is None or lo <= v) and (hi is None or v <= hi)
    if kind is validate.OneOf:
        choices = validator.choices
        return lambda v: v in choices
    if kind is validate.Regexp:
        regex = validator.regex
        return lambda v: type(v) is str and regex.match(v) is not None
    if kind is validate.Length:
        lo, hi, equal = validator.min, validator.max, validator.equal
        if equal is not None:
            return lambda v: len(v) == equal
        return lambda v: (lo is None or lo <= len(v)) and (hi is None or len(v) <= hi)
    raise _Unsupported(validator)


def _anything(value: Any) -> bool:
    return True
