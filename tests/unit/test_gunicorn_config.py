"""The API's gunicorn hooks that need no running server."""

from __future__ import annotations

import gc

from service.runner import gunicorn_config
from service.runner.gunicorn import module_settings


def test_a_worker_freezes_what_the_loaded_app_holds() -> None:
    assert module_settings()["post_worker_init"] is gunicorn_config.post_worker_init
    held = [object() for _ in range(100)]  # stands in for the loaded app
    try:
        gunicorn_config.post_worker_init(None)
        assert gc.get_freeze_count() >= len(held)
    finally:
        gc.unfreeze()  # other tests of this process expect a normal collector
