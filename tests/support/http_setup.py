"""Building the real app for HTTP tests: settings and a contract-checking test client.

Every app uses the test's own key prefix (cleaned afterwards by ``redis_client``), no
notifier (no bot jobs, no feed: each test drives what it needs), the rate limit off
unless a test asks for one, short stream and long-poll bounds, and a client that
checks every response against ``openapi.yaml``. The fixtures are in ``support.http_app``.
"""

from __future__ import annotations

from typing import Any

import redis
from flask import Flask

from service.app.application import NoNotifier
from service.bootstrap import build
from service.http import create_app
from service.settings import Settings
from support.contract import ContractClient
from support.redis import TestRedis

ADMIN_TOKEN = "admin-token-for-tests-0123456789"


def app_settings(redis_target: TestRedis, key_prefix: str, **overrides: Any) -> Settings:
    """Settings for a test app (see the module docstring)."""
    values: dict[str, Any] = {
        "redis_url": redis_target.url,
        "key_prefix": key_prefix,
        "admin_token": ADMIN_TOKEN,
        "rate_limit_per_minute": 0,
        "create_limit_per_minute": 0,
        "verify_limit_per_minute": 0,
        "replay_limit_per_minute": 0,
        "snapshot_every": 25,
        "sse_max_s": 5.0,
        "sse_heartbeat_s": 0.2,
        "long_poll_max_s": 2.0,
        **overrides,
    }
    return Settings(**values)


def make_app(settings: Settings, client: redis.Redis) -> Flask:
    """The real app on ``client`` with a contract-checking test client."""
    app = create_app(services=build(settings, notifier=NoNotifier(), client=client))
    app.test_client_class = ContractClient
    return app
