"""The web client's other promises, in a real browser: a spectator's page follows bots
live; a reload (and a lost connection) keeps the seat and resumes the stream without
gaps; a refused command shows the server's reason; a phone-sized screen; the keyboard
alone; and how the pages are served (CSP, allow-list, no token in any URL)."""

from __future__ import annotations

import re
import time
from typing import Any

import requests
from support.browser_pages import (
    MOVED_ON,
    click_and_wait,
    create_game,
    log_versions,
    play_abluxxen_turn,
    status,
    version,
    wait_ready,
)
from support.live_server import LiveServer


def contiguous(versions: list[int]) -> bool:
    return versions == list(range(versions[0], versions[-1] + 1))


def test_a_spectator_page_follows_the_bots_live(page: Any) -> None:
    create_game(page, "schlitzohr", ["random", "greedy"], options={"turn_cap": "10"}, join=False)
    assert "watching as a spectator" in page.locator(".who").inner_text()
    first = version(page)
    seen = {first}
    # The page redraws as the bots' events arrive, without a reload or a click.
    while status(page) != "finished":
        page.wait_for_function(MOVED_ON, arg=max(seen))
        seen.add(version(page))
    assert len(seen) >= 3, seen
    page.locator("#verdict.ok").wait_for()
    assert page.locator("ol.log > li").count() > 10
    assert contiguous(log_versions(page))
    # Spectators never see a colour that is not face up: no ear is drawn as "seen".
    assert page.locator(".ear.seen").count() == 0


def test_a_reload_and_a_lost_connection_keep_the_seat_and_miss_no_event(
    page: Any, context: Any
) -> None:
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    game_id = create_game(page, "abluxxen", [None, "greedy", "random"])
    for step in range(3):
        wait_ready(page)
        play_abluxxen_turn(page, step)
    wait_ready(page)
    hand_before = page.locator("#hand-title").inner_text()
    page.reload()
    page.locator("#hand-title").wait_for()
    assert "You play seat 0 (ada)" in page.locator(".who").inner_text()
    assert page.locator("#hand-title").inner_text() == hand_before
    resumed_at = version(page)
    # Still this seat's turn, and its commands still go through.
    wait_ready(page)
    play_abluxxen_turn(page, 3)
    # The network goes away for a while, then comes back: the stream reopens after the
    # last version it had and the log goes on without a gap.
    context.set_offline(True)
    page.locator('#connection[data-state="reconnecting"]').wait_for()
    context.set_offline(False)
    page.locator('#connection[data-state="live"]').wait_for()
    for step in range(4, 8):
        wait_ready(page)
        if status(page) == "finished":
            break
        play_abluxxen_turn(page, step)
    versions = [v for v in log_versions(page) if v > resumed_at]
    assert versions and contiguous(versions), versions
    # The seat token travelled in headers only: never in a URL (streams use tickets).
    token = page.evaluate(f"JSON.parse(localStorage.getItem('tabletop.seat.{game_id}')).token")
    assert token and not [u for u in urls if token in u or token.split(".")[-1] in u]
    assert any("/events/stream?" in u and "ticket=" in u for u in urls)


def test_a_refused_command_shows_the_servers_reason(page: Any) -> None:
    create_game(page, "schlitzohr", [None, "greedy"], options={"turn_cap": "10"})
    wait_ready(page)
    click_and_wait(page, page.locator("#act-roll"))
    wait_ready(page)
    if page.locator("#act-move").count():  # a 6: choose to move
        page.locator("#act-move").click()
    ear = page.locator(".sz-cell.movable").first
    field = ear.get_attribute("data-field")
    ear.click()
    # Not a highlighted field: one no straight step reaches. The page sends it as asked, the
    # server refuses it, the page says why and the game is where it was.
    before = version(page)
    # Any free field in another file and rank: never a straight step.
    empty = page.evaluate(
        """f => [...document.querySelectorAll('.sz-cell')]
              .filter(c => !c.querySelector('.ear') && !c.classList.contains('blocked'))
              .map(c => c.dataset.field)
              .filter(g => g[0] !== f[0] && g.slice(1) !== f.slice(1))""",
        field,
    )
    page.locator(f'.sz-cell[data-field="{empty[0]}"]').click()
    refusal = page.locator("#refusal")
    refusal.filter(has_text="Refused:").wait_for()
    assert "(step_not_straight)" in refusal.inner_text()
    assert version(page) == before
    # The refusal is announced (role=alert) and the seat can still move.
    assert refusal.get_attribute("role") == "alert"
    assert page.locator(".sz-cell.selected").get_attribute("data-field") == field
    click_and_wait(page, page.locator(".sz-cell.dest").first)
    assert page.locator("#refusal").inner_text() == ""


def test_a_phone_sized_screen_shows_both_games_without_sideways_scrolling(
    browser: Any, web_server: LiveServer
) -> None:
    phone = browser.new_context(
        base_url=web_server.url, viewport={"width": 375, "height": 740}, is_mobile=True, has_touch=True
    )
    try:
        page = phone.new_page()
        for game, seats in (("schlitzohr", [None, "greedy"]), ("abluxxen", [None, "greedy"])):
            create_game(page, game, seats, options={"turn_cap": "10"} if game == "schlitzohr" else None)
            wait_ready(page)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 375, f"{game}: the page is {width}px wide on a 375px screen"
            selector = "#act-roll" if game == "schlitzohr" else ".hand button.card:not([disabled])"
            # Found and measured in one go (a live update may redraw the page at any moment).
            left, right, height = page.evaluate(
                "s => { const r = document.querySelector(s).getBoundingClientRect();"
                " return [r.left, r.right, r.height]; }",
                selector,
            )
            assert left >= 0 and right <= 375, (game, left, right)
            assert height >= 30, (game, height)  # big enough for a finger
            page.locator(selector).first.tap()
        page.goto("/")
        page.locator("#create-submit").wait_for()
        assert page.evaluate("document.documentElement.scrollWidth") <= 375
    finally:
        phone.close()


def tab_to(page: Any, selector: str, limit: int = 80) -> None:
    """Press Tab until the focus is on ``selector``: it is reachable by keyboard."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{selector} not reached with Tab")


def test_the_essentials_work_with_the_keyboard_alone(page: Any) -> None:
    page.goto("/")
    page.locator("#create-submit").wait_for()
    tab_to(page, "#player-name")
    page.keyboard.type("kim")
    tab_to(page, "#create-game")
    page.keyboard.press("End")  # the last game of the list: Schlitzohr
    tab_to(page, "#option-turn_cap")
    page.keyboard.press("Control+A")
    page.keyboard.type("10")
    tab_to(page, "#create-submit")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"#/games/"))
    wait_ready(page)
    # The turn is announced to screen readers.
    assert page.locator("#live").inner_text().startswith("Your turn")
    tab_to(page, "#act-roll")
    before = version(page)
    page.keyboard.press("Enter")
    page.wait_for_function(MOVED_ON, arg=before)
    wait_ready(page)
    if page.locator("#act-move").count():
        tab_to(page, "#act-move")
        page.keyboard.press("Enter")
    # Only the fields one can act on take the focus; each says what it is.
    tab_to(page, ".sz-cell.movable")
    label = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert re.match(r"[a-i][1-9], .*ear \d+", label), label
    page.keyboard.press("Enter")
    tab_to(page, ".sz-cell.dest")
    assert "legal destination" in page.evaluate("document.activeElement.getAttribute('aria-label')")
    before = version(page)
    page.keyboard.press("Enter")
    page.wait_for_function(MOVED_ON, arg=before)


def test_the_pages_are_served_with_a_strict_policy(web_server: LiveServer) -> None:
    index = requests.get(web_server.url + "/", timeout=10)
    assert index.status_code == 200 and index.headers["Content-Type"].startswith("text/html")
    csp = index.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe" not in csp and "frame-ancestors 'none'" in csp
    module = requests.get(web_server.url + "/web/main.js", timeout=10)
    assert module.status_code == 200 and module.headers["Content-Type"].startswith("text/javascript")
    # Only the client's own files: nothing else of the server's disk.
    for path in ("/web/../pyproject.toml", "/web/%2e%2e/pyproject.toml", "/web/js/main.js", "/web/index"):
        answer = requests.get(web_server.url + path, timeout=10)
        assert answer.status_code == 404, path
    # The API keeps its own strict policy.
    api = requests.get(web_server.url + "/v1/catalogue", timeout=10)
    assert api.headers["Content-Security-Policy"] == "default-src 'none'; frame-ancestors 'none'"


def test_a_join_answered_after_the_spectator_reload_still_shows_the_seat(page: Any) -> None:
    """The page's stream (still a spectator's) reports the seat being taken, and the page
    reloads the game at that version as a spectator, before the join's own answer
    arrives: the reload with the new token finds the same version, and the page must
    still redraw as the seat's (it once kept showing "watching" -- a race the fast
    read path made common)."""
    create_game(page, "abluxxen", [None, None], join=False)
    page.locator(".who").filter(has_text="watching").wait_for()
    before = version(page)

    def late(route: Any) -> None:
        answer = route.fetch()  # the seat is taken now; the answer is held back
        for _ in range(100):  # until the page reloaded the new version as a spectator
            if version(page) > before:
                break
            time.sleep(0.05)
        assert version(page) > before
        route.fulfill(response=answer)

    page.route(re.compile(r".*/v1/games/[^/]+/seats$"), late)
    page.locator("#join-name").fill("ada")
    page.locator("#join-game").click()
    page.locator(".who").filter(has_text="You play seat 0 (ada)").wait_for(timeout=10_000)


def test_two_people_join_one_game_from_the_game_page_and_the_lobby_list(
    page: Any, browser: Any, web_server: LiveServer
) -> None:
    game_id = create_game(page, "abluxxen", [None, None], join=False)
    assert "watching" in page.locator(".who").inner_text()
    page.locator("#join-name").fill("ada")
    page.locator("#join-game").click()
    page.locator(".who").filter(has_text="You play seat 0 (ada)").wait_for()
    assert "Waiting for players: 1 free seat" in page.locator("#turn").inner_text()
    other = browser.new_context(base_url=web_server.url)
    try:
        bob = other.new_page()
        bob.goto("/")
        bob.locator("#player-name").fill("bob")
        # The open game appears in the lobby's list (a read model: within moments).
        bob.locator(f'.game-row[data-game-id="{game_id}"] button', has_text="Join").click()
        bob.locator(".who").filter(has_text="You play seat 1 (bob)").wait_for()
        # Both pages follow the start: ada (seat 0) is first to play, bob waits.
        page.locator("#turn").filter(has_text="Your turn").wait_for()
        bob.locator("#turn").filter(has_text="ada's turn").wait_for()
        wait_ready(page)
        play_abluxxen_turn(page, 1)
        # ada's set reaches bob's page live, and bob sees his own hand, not hers.
        bob.locator("ol.log").filter(has_text="ada played").wait_for()
        assert bob.locator("#hand-title").count() == 1
        assert bob.locator(".rows .seat.you").get_attribute("data-seat") == "1"
    finally:
        other.close()


def test_what_the_browser_keeps_for_games_long_past_is_forgotten(page: Any) -> None:
    """Seat tokens and invite codes are kept per game in localStorage; without pruning
    they piled up for ever. On each page load: a seat not opened for 90 days goes, an
    invite code older than 7 days goes, at most the newest 300 of each stay, and an
    entry from before entries were dated is dated, not dropped."""
    page.goto("/")
    page.evaluate(
        """() => {
          const now = Date.now(), day = 24 * 3600 * 1000;
          const seat = (id, ago) => localStorage.setItem('tabletop.seat.' + id,
            JSON.stringify({seat: 0, token: 't', name: 'ada', kept: now - ago}));
          seat('old', 91 * day);
          seat('recent', 89 * day);
          localStorage.setItem('tabletop.seat.undated', JSON.stringify({seat: 1, token: 'u', name: 'bob'}));
          localStorage.setItem('tabletop.invite.bare', 'code-from-before');
          localStorage.setItem('tabletop.invite.stale', JSON.stringify({code: 'c', kept: now - 8 * day}));
          localStorage.setItem('tabletop.invite.fresh', JSON.stringify({code: 'f', kept: now - 6 * day}));
          localStorage.setItem('tabletop.name', 'ada');
        }"""
    )
    kept = _reloaded_storage(page)
    assert _kept_ids(kept, "seat") == {"recent", "undated"}
    assert "kept" in kept["tabletop.seat.undated"]  # dated now, to age from here
    assert _kept_ids(kept, "invite") == {"bare", "fresh"} and "code-from-before" in kept["tabletop.invite.bare"]
    assert kept["tabletop.name"] == "ada"

    # At most the newest 300: the oldest ("recent") and the last few of the many go.
    page.evaluate(
        """() => {
          const now = Date.now();
          for (let i = 0; i < 305; i++) localStorage.setItem('tabletop.seat.many' + String(i).padStart(3, '0'),
            JSON.stringify({seat: 0, token: 't', name: 'ada', kept: now - i * 1000}));
        }"""
    )
    seats = _kept_ids(_reloaded_storage(page), "seat")
    assert len(seats) == 300 and "undated" in seats and "many298" in seats
    assert "recent" not in seats and "many299" not in seats


def _reloaded_storage(page: Any) -> dict[str, str]:
    page.reload()
    page.locator("#game-filter").wait_for()  # drawn by the script, after its pruning
    return dict(page.evaluate("() => Object.fromEntries(Object.entries(localStorage))"))


def _kept_ids(storage: dict[str, str], kind: str) -> set[str]:
    prefix = f"tabletop.{kind}."
    return {key.removeprefix(prefix) for key in storage if key.startswith(prefix)}
