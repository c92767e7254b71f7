"""Invite-only games in the browser, by clicks: the creator shares the game's link, a
friend who opens it takes the free seat, and a stranger who finds the game in the
lobby or at its address cannot (docs/security.md: a stranger who takes the last seat
of a game without a clock could hold it up for a week)."""

from __future__ import annotations

import re
from typing import Any

import requests
from support.browser_pages import create_game, status


def shared_link(page: Any, base_url: str, game_id: str) -> tuple[str, str]:
    """The link the game page offers to copy, and the invite code in it."""
    shared = str(page.locator("#invite-link").input_value())
    found = re.fullmatch(rf"{re.escape(base_url)}/#/games/{game_id}\?invite=([A-Za-z0-9_-]{{32}})", shared)
    assert found, shared
    return shared, found.group(1)


def test_only_a_friend_with_the_link_takes_the_seat_of_an_invite_only_game(
    page: Any, browser: Any, web_server: Any
) -> None:
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    game_id = create_game(page, "schlitzohr", [None, None], name="ada", options={"turn_cap": "10"}, invite_only=True)
    page.locator("#invite-link").wait_for()
    shared, code = shared_link(page, web_server.url, game_id)
    view = requests.get(f"{web_server.url}/v1/games/{game_id}", timeout=10).json()
    assert view["invite_only"] is True and view["seats"][0]["name"] == "ada"
    page.set_viewport_size({"width": 375, "height": 740})  # the link fits a phone's screen
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    page.set_viewport_size({"width": 1200, "height": 900})
    stranger = browser.new_context(base_url=web_server.url)
    friend = browser.new_context(base_url=web_server.url)
    try:
        # A friend opens the first link: the code leaves the address bar, the form is there.
        bob = friend.new_page()
        bob.on("request", lambda request: urls.append(request.url))
        bob.goto(shared)
        bob.locator("#join-game").wait_for()
        assert bob.url.endswith(f"#/games/{game_id}")
        # A new link voids the first (shared too widely, say): it seats nobody now, and
        # the friend's open page drops it at once and asks for the new one.
        page.locator("#invite-renew").click()
        page.wait_for_function("old => document.querySelector('#invite-link').value !== old", arg=shared)
        refused = requests.post(
            f"{web_server.url}/v1/games/{game_id}/seats", json={"name": "eve", "invite": code}, timeout=10
        )
        assert refused.status_code == 403 and refused.json()["code"] == "invite_required"
        first_code = code
        shared, code = shared_link(page, web_server.url, game_id)
        bob.locator("#invite-needed").wait_for()
        assert bob.locator("#join-game").count() == 0

        # A stranger sees the game in the lobby, marked, with nothing to join by ...
        eve = stranger.new_page()
        eve.on("request", lambda request: urls.append(request.url))
        eve.goto("/")
        row = eve.locator(f'li[data-game-id="{game_id}"]')
        row.wait_for(timeout=30_000)  # the lobby is a read model: within moments
        assert row.locator(".invite-only").inner_text() == "invite only"
        assert row.locator(f'[data-key="join-{game_id}"]').count() == 0
        # ... and at its address is told to ask for the link, with no form to join.
        eve.goto(f"/#/games/{game_id}")
        eve.locator("#invite-needed").wait_for()
        assert eve.locator("#join-game").count() == 0 and eve.locator("#invite-link").is_hidden()

        # With the new link the friend's seat is theirs.
        bob.goto(shared)
        bob.locator("#join-game").wait_for()
        bob.locator("#join-name").fill("bob")
        bob.locator("#join-game").click()
        bob.wait_for_function("() => document.querySelector('main').dataset.status === 'running'")
        assert "You play seat 1 (bob)" in bob.locator(".who").inner_text()
        # The creator's page sees the game start and stops offering the link.
        page.wait_for_function("() => document.querySelector('main').dataset.status === 'running'")
        assert page.locator("#invite").is_hidden()
        # Every seat is taken: the codes, which open nothing now, are not kept any more.
        for browser_page in (page, bob):
            browser_page.wait_for_function(f"() => localStorage.getItem('tabletop.invite.{game_id}') === null")
        eve.wait_for_function("() => document.querySelector('main').dataset.status === 'running'")
        assert status(eve) == "running" and eve.locator("#invite-needed").count() == 0
    finally:
        stranger.close()
        friend.close()
    # The codes rode in URL fragments and in bodies only: no request line carried one.
    assert urls and not [url for url in urls if code in url or first_code in url]
