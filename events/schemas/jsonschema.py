"""JSON Schema (2020-12, as OpenAPI 3.1 reads it) of the marshmallow event schemas.

:func:`to_json_schema` translates what ``events/schemas`` uses and nothing else:
strict ``Integer`` with ``Range``, ``String`` with ``OneOf``/``Regexp``/``Length``,
``List``, ``Dict`` (keys and values), ``Nested``, ``Card``, ``allow_none``,
``data_key``, required fields, and unknown fields refused (marshmallow's ``RAISE``).
A schema class with a ``@validates_schema`` hook states its cross-field rule for the
contract in ``JSON_SCHEMA_ONE_OF`` (JSON Schema ``oneOf`` branches added to the
object); a hook without one, or any other field or validator, raises
:class:`Untranslatable`, so the contract can never silently admit less or more
than the store does. ``tests/unit/test_contract_events.py`` checks the translation
on real games: every event the engines emit passes both.
"""

from __future__ import annotations

import re
from typing import Any

from marshmallow import RAISE, Schema, fields, validate

from events.schemas.fields import Card, StrictBool

JSON = dict[str, Any]


class Untranslatable(ValueError):
    """A field, validator or hook this module cannot state in JSON Schema."""


def to_json_schema(schema: Schema) -> JSON:
    """The JSON Schema of what ``schema.validate`` accepts (see the module docstring)."""
    hooks = any(schema._hooks.values())
    one_of = getattr(type(schema), "JSON_SCHEMA_ONE_OF", None)
    if hooks and one_of is None:
        raise Untranslatable(f"{type(schema).__name__} has a hook without JSON_SCHEMA_ONE_OF")
    if schema.unknown != RAISE or schema.many:
        raise Untranslatable(type(schema).__name__)
    properties: JSON = {}
    required: list[str] = []
    for name, field in schema.fields.items():
        key = field.data_key or name
        properties[key] = _field(field)
        if field.required:
            required.append(key)
    out: JSON = {"type": "object"}
    if required:
        out["required"] = required
    out["properties"] = properties
    out["additionalProperties"] = False
    if one_of:
        out["oneOf"] = [dict(branch) for branch in one_of]
    return out


def _field(field: fields.Field) -> JSON:  # type: ignore[type-arg]
    out = _value(field)
    if field.allow_none:
        out = {"oneOf": [out, {"type": "null"}]}
    return out


def _value(field: fields.Field) -> JSON:  # type: ignore[type-arg]
    # type(field) is ..., not isinstance: a subclass may change what the field takes;
    # spelled out in each test (not via a local) so that mypy narrows ``field``.
    if type(field) is Card:
        return {"$ref": "#/components/schemas/Card"}
    if type(field) is fields.Integer:
        if not field.strict:
            raise Untranslatable("non-strict integer")
        out: JSON = {"type": "integer"}
    elif type(field) is fields.String:
        out = {"type": "string"}
    elif type(field) is StrictBool:
        out = {"type": "boolean"}
    elif type(field) is fields.List:
        out = {"type": "array", "items": _field(field.inner)}
    elif type(field) is fields.Dict:
        out = {"type": "object"}
        if field.key_field is not None:
            keys = _field(field.key_field)
            if keys != {"type": "string"}:
                out["propertyNames"] = keys
        if field.value_field is not None:
            out["additionalProperties"] = _field(field.value_field)
    elif type(field) is fields.Nested:
        if not isinstance(field.schema, Schema) or field.many:
            raise Untranslatable("nested")
        return to_json_schema(field.schema)
    else:
        raise Untranslatable(f"field {type(field).__name__}")
    for validator in field.validators:
        out.update(_validator(validator))
    return out


def _validator(validator: Any) -> JSON:
    kind = type(validator)
    if kind is validate.Range:
        if not (validator.min_inclusive and validator.max_inclusive):
            raise Untranslatable("exclusive range")
        bounds = {"minimum": validator.min, "maximum": validator.max}
        return {k: v for k, v in bounds.items() if v is not None}
    if kind is validate.OneOf:
        return {"enum": list(validator.choices)}
    if kind is validate.Regexp:
        return {"pattern": _ecma(validator.regex.pattern)}
    if kind is validate.Length:
        if validator.equal is not None:
            return {"minLength": validator.equal, "maxLength": validator.equal}
        bounds = {"minLength": validator.min, "maxLength": validator.max}
        return {k: v for k, v in bounds.items() if v is not None}
    raise Untranslatable(f"validator {kind.__name__}")


def _ecma(pattern: str) -> str:
    r"""A Python ``re.match`` pattern ending in ``\Z`` as an anchored ECMA-262 pattern."""
    if not pattern.endswith(r"\Z"):
        raise Untranslatable(f"pattern not anchored at the end: {pattern!r}")
    body = pattern[: -len(r"\Z")]
    if re.search(r"\(\?P?<|\\[AZz]", body):
        raise Untranslatable(f"pattern uses Python-only syntax: {pattern!r}")
    return f"^(?:{body})$"
