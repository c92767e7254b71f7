"""Screenshots of the web client mid-game, for the README and ``docs/``.

    python3 run.py up &                                   # any running service
    .venv/bin/python -m bench.web_screenshots [--url http://127.0.0.1:8000] [--out docs/screenshots]

Drives the system's ``chromium`` (Playwright, headless) as a person would: creates a
Schlitzohr game (you against two random bots, so it lasts, with a turn clock) and an Abluxxen game (you
against two bots) from the lobby, plays some turns by clicks, and saves
``schlitzohr.png``, ``abluxxen.png`` and ``lobby.png`` (1200x860), plus
``phone.png`` (the Abluxxen table at 390x844). Not a benchmark: a tool kept beside
them. Every wait is bounded (Playwright's 30 s default).
"""

from __future__ import annotations

import argparse
import re
import shutil
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

READY = """() => { const m = document.querySelector('main');
  return m.dataset.version && m.dataset.busy === '0'
    && (m.dataset.mine === '1' || m.dataset.status === 'finished'); }"""
MOVED_ON = "v => Number(document.querySelector('main').dataset.version) > v"


def create(page: Any, game: str, seats: list[str], clock: tuple[str, str] | None = None) -> None:
    page.goto("/")
    page.locator("#player-name").fill("ada")
    page.locator("#create-game").select_option(game)
    page.locator("#create-players").fill(str(len(seats)))
    page.locator("#create-players").dispatch_event("input")
    for seat, level in enumerate(seats):
        page.locator(f"#create-seat-{seat}").select_option(level)
    if clock is not None:  # a preset and a policy, as the form names them
        page.locator("#create-clock").select_option(clock[0])
        page.locator("#create-clock-policy").select_option(clock[1])
    page.locator("#create-submit").click()
    page.wait_for_url(re.compile(r"#/games/"))


def act(page: Any, locator: Any) -> None:
    before = int(page.locator("main").get_attribute("data-version"))
    locator.click()
    page.wait_for_function(MOVED_ON, arg=before)


def schlitzohr_turns(page: Any, commands: int) -> None:
    """Rolls; after a 6 peeks; inspects the first ears offered; moves the ear nearest
    the red edge south (so that ears reach targets and show their colours)."""
    for step in range(commands):
        page.wait_for_function(READY)
        if page.locator("main").get_attribute("data-status") == "finished":
            return
        if page.locator("#act-joker").count() and step < 4:
            act(page, page.locator("#act-joker"))  # inspect some ears: their colours show
        elif page.locator("#act-roll").count():
            act(page, page.locator("#act-roll"))
        elif page.locator("#act-inspect").count():
            hint = page.locator("#hint").inner_text()
            if (found := re.search(r"choose (\d+) ear", hint)) is None:
                raise RuntimeError(f"the inspect hint no longer says how many ears: {hint!r}")
            wanted = int(found.group(1))
            for _ in range(wanted):
                page.locator('.sz-cell[aria-pressed="false"]').first.click()
            act(page, page.locator("#act-inspect"))
        elif page.locator("#act-place").count():
            page.locator("#act-place").click()
            page.locator(".sz-cell.movable").first.click()
            act(page, page.locator(".sz-cell.dest").first)
        else:
            if page.locator("#act-move").count():
                page.locator("#act-move").click()
            page.locator(".sz-cell.movable").last.click()
            act(page, page.locator(".sz-cell.dest").last)


def abluxxen_turns(page: Any, commands: int) -> None:
    for step in range(commands):
        page.wait_for_function(READY)
        if page.locator("main").get_attribute("data-status") == "finished":
            return
        if page.locator("#act-play").count():
            for _ in range(3):
                free = page.locator('.hand button.card[aria-pressed="false"]:not([disabled])')
                if free.count():
                    free.last.click()
            act(page, page.locator("#act-play"))
        elif page.locator("#act-take").count():
            act(page, page.locator("#act-take"))
        elif page.locator("#act-take_back").count():
            act(page, page.locator("#act-discard"))
        elif page.locator("button.card.drawable[data-card]").count() and step % 2:
            act(page, page.locator("button.card.drawable[data-card]").first)
        elif page.locator("#draw-pile").count():
            act(page, page.locator("#draw-pile"))
        else:
            act(page, page.locator("#act-pass"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--out", default="docs/screenshots")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), headless=True)
        desk = browser.new_context(base_url=args.url, viewport={"width": 1200, "height": 860})
        page = desk.new_page()
        create(page, "schlitzohr", ["", "random", "random"], clock=("slow", "bot:greedy"))
        schlitzohr_turns(page, 14)
        page.wait_for_function(READY)
        if page.locator("#act-roll").count():
            act(page, page.locator("#act-roll"))
            page.wait_for_function(READY)
        if page.locator("#act-move").count():
            page.locator("#act-move").click()
        if page.locator(".sz-cell.movable").count():
            page.locator(".sz-cell.movable").nth(2).click()  # an ear chosen: its destinations lit
        page.screenshot(path=out / "schlitzohr.png")
        create(page, "abluxxen", ["", "greedy", "random"])
        abluxxen_turns(page, 14)
        page.wait_for_function(READY)
        page.screenshot(path=out / "abluxxen.png")
        phone = browser.new_context(base_url=args.url, viewport={"width": 390, "height": 844}, is_mobile=True)
        small = phone.new_page()
        small.goto(page.url.replace(args.url, ""))
        small.evaluate("s => localStorage.setItem(s[0], s[1])", [
            f"tabletop.seat.{page.url.rsplit('/', 1)[1]}",
            page.evaluate(f"localStorage.getItem('tabletop.seat.{page.url.rsplit('/', 1)[1]}')"),
        ])
        small.reload()
        small.locator("#hand-title").wait_for()
        small.screenshot(path=out / "phone.png")
        page.goto("/")
        page.locator(".game-row").first.wait_for()
        page.screenshot(path=out / "lobby.png")
        browser.close()
    print(f"screenshots in {out}/: schlitzohr.png abluxxen.png phone.png lobby.png")


if __name__ == "__main__":
    main()
