"""Gunicorn, embedded: serve a WSGI app factory with settings given in code.

``tabletop serve`` and the API bench both go through :func:`serve`, so the bench's
bare endpoint and the real API run under exactly the same server settings.

The settings start from the API's own gunicorn config module
(``service.runner.gunicorn_config``: worker class, connections, timeouts, the metrics
hook), and the operator's choices (:class:`ServerOptions`) override them.

The master imports nothing of the app (gevent workers must patch before the app is
imported: ``service.runner.server``), so ``tabletop serve`` -- whose command line has
imported much already -- replaces itself with a fresh interpreter running
:func:`main` here (``python -m service.runner.gunicorn``), same process id.

Metrics: under several worker processes ``prometheus_client`` needs
``PROMETHEUS_MULTIPROC_DIR`` set *before* the workers import it. :func:`serve` points
it at a fresh temporary directory when the environment names none and removes that
directory on exit (the config module's ``child_exit`` marks dead workers' files).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gunicorn.app.base import BaseApplication
from gunicorn.config import KNOWN_SETTINGS

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

API_FACTORY = "service.http:create_app"
"""The tabletop API's app factory, called without arguments in each worker."""

CONFIG_MODULE = "service.runner.gunicorn_config"
"""Gunicorn settings the API needs, as a module of ``name = value`` lines."""


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """What ``tabletop serve`` lets an operator choose (None: the config module's value)."""

    bind: str = "127.0.0.1:8000"
    workers: int = 2
    worker_class: str = "gevent"
    threads: int | None = None
    access_log: bool = False


WORKER_CLASSES = {
    "gevent": "service.runner.server.GeventWorker",
    "gthread": "service.runner.server.ThreadWorker",
    "sync": "sync",
}
"""``tabletop serve --worker-class`` names -> gunicorn worker classes. gevent: the API's
default (idle streams cost no thread, see ``service.runner.server``); gthread: the old
thread-per-request model; sync: plain request/response loads (no long polls)."""


def check_factory(path: str) -> None:
    """ValueError unless ``path`` is ``module:function`` naming a module that exists
    (without importing it: the master stays free of the app)."""
    module, _, name = path.partition(":")
    if not module or not name:
        raise ValueError(f"an app factory is module:function, got {path!r}")
    if importlib.util.find_spec(module) is None:
        raise ValueError(f"no module {module!r} (app factory {path!r})")


def load_factory(path: str) -> Callable[[], Any]:
    """``module:function`` -> the function (ValueError for a malformed path)."""
    module, _, name = path.partition(":")
    if not module or not name:
        raise ValueError(f"an app factory is module:function, got {path!r}")
    factory: Callable[[], Any] = getattr(importlib.import_module(module), name)
    return factory


def module_settings(name: str = CONFIG_MODULE) -> dict[str, Any]:
    """The gunicorn settings a config module defines (other names in it are ignored)."""
    known = {setting.name for setting in KNOWN_SETTINGS}
    return {
        key: value for key, value in vars(importlib.import_module(name)).items() if key in known
    }


class EmbeddedGunicorn(BaseApplication):  # type: ignore[misc]  # gunicorn is untyped
    """A gunicorn application whose settings come from a mapping, not argv."""

    def __init__(self, factory: str, settings: Mapping[str, Any]) -> None:
        self._factory = factory
        self._settings = dict(settings)
        super().__init__()

    def load_config(self) -> None:
        for key, value in self._settings.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        # Called in each worker after the fork: every worker builds its own services.
        return load_factory(self._factory)()


def gunicorn_settings(options: ServerOptions) -> dict[str, Any]:
    """The config module's settings, overridden by ``options``."""
    settings = module_settings()
    settings.update(
        bind=[options.bind],
        workers=options.workers,
        worker_class=WORKER_CLASSES.get(options.worker_class, options.worker_class),
        accesslog="-" if options.access_log else None,
        errorlog="-",
        proc_name="tabletop-api",
    )
    if options.threads is not None:
        settings["threads"] = options.threads
    if options.worker_class == "sync":
        settings["threads"] = 1  # gunicorn turns "sync" with threads > 1 into gthread
    if "control_socket_disable" in {s.name for s in KNOWN_SETTINGS}:
        # gunicorn >= 25.1 opens a control socket at one per-user path by default, so
        # two servers of one user (the bench, parallel tests) would take it from each other.
        settings["control_socket_disable"] = True
    return settings


def serve(options: ServerOptions, factory: str = API_FACTORY) -> None:
    """Run gunicorn in this process until it is stopped (SIGTERM: graceful, SIGINT: quick).

    Exits via SystemExit like gunicorn's own command; the temporary metrics directory
    is removed either way.
    """
    own_dir = None
    if not os.environ.get(MULTIPROC_ENV):  # before anything imports prometheus_client
        own_dir = tempfile.mkdtemp(prefix="tabletop-metrics-")
        os.environ[MULTIPROC_ENV] = own_dir
    try:
        check_factory(factory)  # fail here, once, rather than in every worker
        EmbeddedGunicorn(factory, gunicorn_settings(options)).run()
    finally:
        if own_dir is not None:
            shutil.rmtree(own_dir, ignore_errors=True)


def argv(options: ServerOptions, factory: str = API_FACTORY) -> list[str]:
    """The command line of :func:`main` for ``options``."""
    args = ["--bind", options.bind, "--workers", str(options.workers)]
    args += ["--worker-class", options.worker_class, "--app", factory]
    if options.threads is not None:
        args += ["--threads", str(options.threads)]
    if options.access_log:
        args.append("--access-log")
    return args


def exec_serve(options: ServerOptions, factory: str = API_FACTORY) -> None:
    """Replace this process with a fresh interpreter that runs :func:`serve` (never returns)."""
    sys.stdout.flush()
    sys.stderr.flush()
    command = [sys.executable, "-m", "service.runner.gunicorn", *argv(options, factory)]
    os.execv(sys.executable, command)


def parse(args: list[str] | None = None) -> tuple[ServerOptions, str]:
    """The options and app factory of :func:`main`'s command line (the inverse of
    :func:`argv`); what it leaves out takes :class:`ServerOptions`' defaults. Exits with
    argparse's usage error on a bad command line."""
    # An instance's values: on a slotted dataclass ``ServerOptions.bind`` is the slot's
    # descriptor, not the default.
    defaults = ServerOptions()
    parser = argparse.ArgumentParser(prog="service.runner.gunicorn")
    parser.add_argument("--bind", default=defaults.bind)
    parser.add_argument("--workers", type=int, default=defaults.workers)
    parser.add_argument(
        "--worker-class", choices=tuple(WORKER_CLASSES), default=defaults.worker_class
    )
    parser.add_argument("--threads", type=int, default=defaults.threads)
    parser.add_argument("--access-log", action="store_true", default=defaults.access_log)
    parser.add_argument("--app", default=API_FACTORY)
    ns = parser.parse_args(args)
    return ServerOptions(ns.bind, ns.workers, ns.worker_class, ns.threads, ns.access_log), ns.app


def main(args: list[str] | None = None) -> None:
    """``python -m service.runner.gunicorn --bind ... --workers ... --worker-class ...``."""
    serve(*parse(args))


if __name__ == "__main__":
    main()
