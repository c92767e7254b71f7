"""Driving the web client's pages as a person would: clicks (and typing a name) only.

The helpers wait on what the page shows -- the game root's ``data-version``,
``data-busy``, ``data-mine`` and ``data-status`` attributes, kept by ``web/js/game.js``
-- never on the clock.
"""

from __future__ import annotations

import re
from typing import Any

READY = """() => {
  const m = document.querySelector('main');
  return m.dataset.version && m.dataset.busy === '0'
    && (m.dataset.mine === '1' || m.dataset.status === 'finished');
}"""
"""The page has drawn the newest view it knows, and either this seat may act or the game is over."""

MOVED_ON = "v => Number(document.querySelector('main').dataset.version) > v"


def create_game(
    page: Any,
    game: str,
    seats: list[str | None],
    *,
    name: str = "ada",
    options: dict[str, str] | None = None,
    join: bool = True,
    clock: tuple[str, str] | None = None,
    invite_only: bool = False,
) -> str:
    """Create a game from the lobby's form: ``seats`` = a bot level per seat, None for a
    person; ``clock`` = the turn clock's preset and policy as the form names them;
    ``invite_only`` ticks *Invite only*; answers the new game's id once its page shows a
    version."""
    page.goto("/")
    page.locator("#create-game").wait_for()
    if page.locator("#player-name").is_enabled():  # signed in: the account's name, fixed
        page.locator("#player-name").fill(name)
    page.locator("#create-game").select_option(game)
    page.locator("#create-players").fill(str(len(seats)))
    page.locator("#create-players").dispatch_event("input")
    for seat, level in enumerate(seats):
        page.locator(f"#create-seat-{seat}").select_option(level or "")
    for option, value in (options or {}).items():
        page.locator(f"#option-{option}").fill(value)
    if clock is not None:
        page.locator("#create-clock").select_option(clock[0])
        page.locator("#create-clock-policy").select_option(clock[1])
    if page.locator("#create-join").is_checked() != join:
        page.locator("#create-join").click()
    if page.locator("#create-invite").is_checked() != invite_only:
        page.locator("#create-invite").click()
    page.locator("#create-submit").click()
    page.wait_for_url(re.compile(r"#/games/"))
    page.wait_for_function("() => document.querySelector('main').dataset.version")
    return page.url.rsplit("/", 1)[1]


def version(page: Any) -> int:
    return int(page.locator("main").get_attribute("data-version"))


def status(page: Any) -> str:
    return str(page.locator("main").get_attribute("data-status"))


def wait_ready(page: Any) -> None:
    page.wait_for_function(READY)


def click_and_wait(page: Any, locator: Any) -> None:
    """Click something that sends a command, and wait for the page to show a later version."""
    before = version(page)
    locator.click()
    page.wait_for_function(MOVED_ON, arg=before)


def play_schlitzohr_turn(page: Any, step: int) -> None:
    """One command of this seat by clicks: roll (or a joker now and then), then peek,
    place or move step by step, or inspect by choosing ears."""
    if page.locator("#act-roll").count():
        joker = page.locator("#act-joker")
        click_and_wait(page, joker if step % 7 == 3 and joker.count() else page.locator("#act-roll"))
    elif page.locator("#act-inspect").count():
        wanted = int(re.search(r"choose (\d+) ear", page.locator("#hint").inner_text()).group(1))
        for _ in range(wanted):
            page.locator('.sz-cell[aria-pressed="false"]').first.click()
        click_and_wait(page, page.locator("#act-inspect"))
    elif page.locator("#act-peek").count() and step % 3 == 0:
        click_and_wait(page, page.locator("#act-peek"))
    else:
        if page.locator("#act-place").count() and step % 3 == 1:
            page.locator("#act-place").click()
        elif page.locator("#act-move").count():
            page.locator("#act-move").click()
        page.locator(".sz-cell.movable").first.click()
        click_and_wait(page, page.locator(".sz-cell.dest").first)


def play_abluxxen_turn(page: Any, step: int) -> None:
    """One command of this seat by clicks: a set chosen card by card (as many as stay
    selectable), take or leave, take back or discard, a draw, or pass."""
    if page.locator("#act-play").count():
        for _ in range(13):
            free = page.locator('.hand button.card[aria-pressed="false"]:not([disabled])')
            if not free.count():
                break
            free.first.click()
        click_and_wait(page, page.locator("#act-play"))
    elif page.locator("#act-take").count():
        click_and_wait(page, page.locator("#act-take" if step % 2 else "#act-leave"))
    elif page.locator("#act-take_back").count():
        click_and_wait(page, page.locator("#act-take_back" if step % 2 else "#act-discard"))
    elif page.locator("#act-pass").count() and step % 4 == 0:
        click_and_wait(page, page.locator("#act-pass"))
    elif page.locator("#draw-pile").count() and (step % 2 or not page.locator("button.card.drawable[data-card]").count()):
        click_and_wait(page, page.locator("#draw-pile"))
    else:
        click_and_wait(page, page.locator("button.card.drawable[data-card]").first)


def play_to_the_end(page: Any, game: str, max_commands: int = 1500) -> int:
    """Play this seat's turns until the game is over; the number of commands sent."""
    turn = play_schlitzohr_turn if game == "schlitzohr" else play_abluxxen_turn
    for step in range(max_commands):
        wait_ready(page)
        if status(page) == "finished":
            return step
        turn(page, step)
    raise AssertionError(f"the game did not end within {max_commands} commands")


def log_versions(page: Any) -> list[int]:
    """The versions in the page's event log, oldest first."""
    values = page.locator("ol.log > li").evaluate_all("items => items.map(i => Number(i.value))")
    return sorted(values)
