"""What a server's master process makes before the fork for all its workers to share.

Kept free of heavy imports: the gunicorn master (``service.runner.gunicorn_config``)
sets it without importing the app, so that gevent workers can patch before anything
of the app is loaded (``service.runner.server``).
"""

from __future__ import annotations

from typing import Any

recent_appends: Any = None
"""The board of recent appends (``events.recent.RecentAppends``) shared by the workers,
or None (one process, or switched off). ``service.bootstrap.build`` hands it to the store."""
