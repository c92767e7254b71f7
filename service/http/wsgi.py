"""The WSGI entry point: ``gunicorn -c python:service.runner.gunicorn_config service.http.wsgi:app``.

Settings come from ``TABLETOP_*`` environment variables (``service.settings``).
"""

from __future__ import annotations

from service.http import create_app

app = create_app()
