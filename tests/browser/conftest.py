"""Browser tests: the web client (``web/``) in Debian's Chromium, driven by Playwright.

One live API server per test session (per xdist worker), with an RQ bot worker and the
projector (the lobby's game list is a read model), on the session's Redis under a key
prefix and queue of its own. Bots pause a few milliseconds before each move
(``TABLETOP_BOT_THINK_MS``), so the pages see them play without slowing the tests.

Playwright's own browser download is not used: the tests launch the system's
``chromium`` (``apt-get install chromium``; ``.ci/run`` installs it when missing). With
no such browser -- or no Playwright -- every test here is skipped, and the reason is
printed (and listed in the summary, ``-ra``); in CI (``TABLETOP_BROWSER_REQUIRED``) the
run fails instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.live_server import LiveServer
from support.processes import ROOT, running, stop_process
from support.redis import TestRedis, delete_prefix, unique_prefix

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

try:
    from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright
except ImportError:  # the [test] extras are not installed
    sync_playwright = None  # type: ignore[assignment]

SKIP_REASON = (
    "browser tests skipped: no `chromium` on PATH (apt-get install chromium)"
    if CHROMIUM is None
    else "browser tests skipped: playwright is not installed (pip install -e '.[test]')"
    if sync_playwright is None
    else None
)

THINK_MS = 20
"""A bot's pause before each move: small, so whole games stay quick."""

SERVER_SETTINGS = {
    "admin_token": "browser-admin-token-0123456789abcdef",
    "rate_limit_per_minute": 0,
    "create_limit_per_minute": 0,
    "verify_limit_per_minute": 0,
    "replay_limit_per_minute": 0,
    "stream_ticket_limit_per_minute": 0,
    "bot_think_ms": THINK_MS,
    # Streams end every few seconds: every page reconnects (a new ticket, after=last)
    # several times per game, and the tests check that no version is missed.
    "sse_max_s": 4.0,
    "sse_heartbeat_s": 1.0,
}

TIMEOUT_MS = 30_000
"""Playwright's default wait: how long a page may take to show what a test waits for."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip this folder's tests, saying why, when there is no browser to drive -- unless
    ``TABLETOP_BROWSER_REQUIRED`` is set (``.ci/run`` sets it after installing the
    browser): then a missing browser fails the run instead of skipping it quietly."""
    if SKIP_REASON is None:
        return
    here = str(Path(__file__).parent)
    mine = [item for item in items if str(item.path).startswith(here)]
    if mine and os.environ.get("TABLETOP_BROWSER_REQUIRED"):
        raise pytest.UsageError(f"TABLETOP_BROWSER_REQUIRED is set, but {SKIP_REASON}")
    if mine:
        print(f"\n*** {SKIP_REASON} ***", file=sys.stderr)
    for item in mine:
        item.add_marker(pytest.mark.skip(reason=SKIP_REASON))


@pytest.fixture(scope="session")
def web_server(redis_target: TestRedis) -> Iterator[LiveServer]:
    """A live server with one bot worker and the projector (for the lobby's lists)."""
    prefix = unique_prefix()
    server = LiveServer(redis_target.url, prefix, **SERVER_SETTINGS).start()
    projector = subprocess.Popen(
        [sys.executable, "-m", "workers.projector"],
        env=server.env,
        cwd=ROOT,
        process_group=0,
        stderr=subprocess.DEVNULL,
    )
    try:
        with running(["worker"], server.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL):
            yield server
    finally:
        stop_process(projector)
        log = server.log_text()
        server.stop()
        client = redis_target.client()
        delete_prefix(client, prefix)
        delete_prefix(client, f"rq:queue:{server.queue}")
        client.close()
        assert "Traceback" not in log, log[-3000:]


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    assert sync_playwright is not None and CHROMIUM is not None
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def context(browser: Browser, web_server: LiveServer) -> Iterator[BrowserContext]:
    """A fresh browser profile (empty localStorage) per test."""
    ctx = browser.new_context(base_url=web_server.url, viewport={"width": 1200, "height": 900})
    ctx.set_default_timeout(TIMEOUT_MS)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context: BrowserContext) -> Iterator[Page]:
    """A page that fails the test on any uncaught script error or CSP violation."""
    errors: list[Any] = []
    tab = context.new_page()
    tab.on("pageerror", lambda error: errors.append(error))
    tab.on(
        "console",
        lambda message: errors.append(message.text)
        if message.type == "error" and "Content Security Policy" in message.text
        else None,
    )
    yield tab
    assert not errors, errors
