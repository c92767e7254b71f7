"""The API's gunicorn hooks that need no running server."""

from __future__ import annotations

import gc

from service.runner import gunicorn_config
from service.runner.gunicorn import API_FACTORY, ServerOptions, argv, module_settings, parse


def test_a_worker_freezes_what_the_loaded_app_holds() -> None:
    assert module_settings()["post_worker_init"] is gunicorn_config.post_worker_init
    held = [object() for _ in range(100)]  # stands in for the loaded app
    try:
        gunicorn_config.post_worker_init(None)
        assert gc.get_freeze_count() >= len(held)
    finally:
        gc.unfreeze()  # other tests of this process expect a normal collector


def test_the_command_line_round_trips_and_defaults_to_server_options() -> None:
    # The defaults are ServerOptions' values (a slotted dataclass's class attributes are
    # slot descriptors, which once stood in for them here).
    assert parse([]) == (ServerOptions(), API_FACTORY)
    chosen = ServerOptions("0.0.0.0:9000", 3, "gthread", 8, True)
    assert parse(argv(chosen, "some.module:factory")) == (chosen, "some.module:factory")
