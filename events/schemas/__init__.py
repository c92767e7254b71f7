"""Marshmallow schemas of everything the store writes: the envelope and every event type.

:func:`default_registry` knows the shared event types and those of every game;
``tests/fixtures/events/`` holds a golden stored example of each (see
``tests/integration/test_store_golden.py``).
"""

from __future__ import annotations

from functools import cache

from events.schemas import abluxxen, schlitzohr
from events.schemas.registry import EventType, SchemaRegistry
from events.schemas.shared import SHARED_TYPES

__all__ = ["EventType", "SchemaRegistry", "default_registry"]


@cache
def default_registry() -> SchemaRegistry:
    """The registry of all shared and game event types (built once, then read-only)."""
    return SchemaRegistry(
        SHARED_TYPES,
        {"schlitzohr": schlitzohr.EVENT_TYPES, "abluxxen": abluxxen.EVENT_TYPES},
    )
