"""Fixtures for HTTP integration tests: the real app on the session's Redis, one per test.

Use them with ``pytest_plugins = ("support.http_app",)`` in a test module:
``http_services`` (the composition root), ``http_app`` (the Flask app, its test client
checking every response against the contract) and ``api`` (a ``FlaskApi`` on it).
How the app is set up: ``support.http_setup``.
"""

from __future__ import annotations

import pytest
import redis
from flask import Flask

from service.app.application import NoNotifier
from service.bootstrap import Services, build
from service.http import create_app
from support.contract import ContractClient
from support.http_games import FlaskApi
from support.http_setup import app_settings
from support.redis import TestRedis


@pytest.fixture
def http_services(redis_target: TestRedis, redis_client: redis.Redis, key_prefix: str) -> Services:
    return build(app_settings(redis_target, key_prefix), notifier=NoNotifier(), client=redis_client)


@pytest.fixture
def http_app(http_services: Services) -> Flask:
    app = create_app(services=http_services)
    app.test_client_class = ContractClient
    return app


@pytest.fixture
def api(http_app: Flask) -> FlaskApi:
    return FlaskApi(http_app.test_client())
