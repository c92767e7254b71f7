"""The per-process parts a request handler needs, looked up on the current Flask app.

``create_app`` stores the composition root (:class:`service.bootstrap.Services`)
in ``app.extensions``; handlers reach it only through these functions, so a test
can build an app per test with its own Redis prefix and settings.
"""

from __future__ import annotations

from flask import current_app

from events.projections import ProjectionReader
from service.app.application import Application
from service.app.queries import Queries
from service.bootstrap import Services
from service.settings import Settings

EXTENSION = "tabletop"
"""The key of the :class:`Services` in ``app.extensions``."""

READS = "tabletop.reads"
"""The key of the :class:`ProjectionReader` (lobby index, player totals)."""


def services() -> Services:
    """The composition root of the current app."""
    return current_app.extensions[EXTENSION]  # type: ignore[no-any-return]


def application() -> Application:
    """The application layer (commands)."""
    return services().app


def queries() -> Queries:
    """The read side of the application layer."""
    return services().app.queries


def settings() -> Settings:
    """The settings the app was built with."""
    return services().settings


def reads() -> ProjectionReader:
    """The read models kept by the projector (eventually consistent)."""
    return current_app.extensions[READS]  # type: ignore[no-any-return]
