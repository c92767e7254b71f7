"""Accounts in the browser, by clicks: register a name (the player key shown once), play
under it, bring the key to another browser and take the seat back there, and find the
name on the leaderboard once a game against a bot has ended."""

from __future__ import annotations

import re
import secrets
from typing import Any

import requests
from support.browser_pages import create_game, play_to_the_end, status, wait_ready


def register(page: Any, name: str) -> str:
    """Register ``name`` from the lobby; the player key the page showed once."""
    page.goto("/")
    page.locator("#player-name").fill(name)
    page.locator("#register").click()
    page.locator("#signed-in").filter(has_text=f"Signed in as {name}").wait_for()
    key = page.locator("#player-key").inner_text()
    assert re.fullmatch(r"pk_[0-9a-f]+\.[A-Za-z0-9_-]{20,}", key), key
    assert page.locator("#player-name").is_disabled()  # the account's name, not a free one
    return str(key)


def test_a_registered_player_plays_takes_the_seat_to_another_browser_and_is_rated(
    page: Any, browser: Any, web_server: Any
) -> None:
    name = f"ada{secrets.token_hex(3)}"
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    key = register(page, name)
    game_id = create_game(page, "schlitzohr", [None, "greedy"], name=name, options={"turn_cap": "10"})
    wait_ready(page)
    assert f"You play seat 0 ({name})" in page.locator(".who").inner_text()
    view = requests.get(f"{web_server.url}/v1/games/{game_id}", timeout=10).json()
    assert view["seats"][0]["name"] == name and view["seats"][0]["guest"] is False  # the account's seat
    # The lobby lists the account's games, where it is to move first (seat 0 starts).
    page.goto("/")
    page.locator("#to-move").filter(has_text="Your move in 1 game.").wait_for()
    assert page.locator("#live").inner_text() == "Your move in 1 game."  # told to screen readers too
    page.locator(f"[data-key='mine-{game_id}']").click()
    page.wait_for_url(re.compile(f"#/games/{game_id}"))
    wait_ready(page)

    # Another device: sign in with the kept key, take the seat back from the lobby.
    other = browser.new_context(base_url=web_server.url)
    try:
        tab = other.new_page()
        tab.on("request", lambda request: urls.append(request.url))
        tab.goto("/")
        tab.locator("#sign-in-key").fill(key)
        tab.locator("#sign-in").click()
        tab.locator("#signed-in").filter(has_text=f"Signed in as {name}").wait_for()
        # Its games list offers the seat too, to be taken back here (the token is elsewhere).
        tab.locator(f"[data-key='mine-{game_id}']").filter(has_text="play here").wait_for()
        tab.locator(f"[data-key='back-{game_id}']").click()
        tab.wait_for_url(re.compile(f"#/games/{game_id}"))
        tab.locator(".who").filter(has_text=f"You play seat 0 ({name})").wait_for()
        # The first browser's token was replaced: its open page hears of it at once
        # (SeatTokenReissued on its stream), says so and watches from then on.
        page.locator("#refusal").filter(has_text="not valid for this game any more").wait_for()
        assert "You are watching as a spectator" in page.locator(".who").inner_text()
        wait_ready(tab)
        assert play_to_the_end(tab, "schlitzohr") >= 1
        assert status(tab) == "finished"
    finally:
        other.close()

    # The key can be shown again in the browser that keeps it (to copy it elsewhere).
    page.goto("/")
    page.locator("#show-key").click()
    assert page.locator("#kept-key").inner_text() == key

    # The first browser forgot the replaced token: it watches the game, and cannot act.
    page.goto(f"/#/games/{game_id}")
    page.locator(".who").filter(has_text="You are watching as a spectator").wait_for()
    assert page.evaluate(f"localStorage.getItem('tabletop.seat.{game_id}')") is None

    # A registered player against a rated bot: the game is rated (by the projector).
    page.goto("/")
    # The leaderboard is read again every 15 s: the projector's rating shows up within that.
    page.locator("#ratings-schlitzohr ~ ol .rated-name", has_text=name).wait_for(timeout=60_000)
    # The key travelled in headers only: no URL the pages asked for holds it (nor a token).
    assert urls and not [u for u in urls if key.split(".")[1] in u or "pk_" in u], urls


def test_a_bad_key_does_not_sign_in_and_a_guest_stays_a_guest(page: Any) -> None:
    page.goto("/")
    page.locator("#sign-in-key").fill("pk_" + "0" * 32 + ".nothing")
    page.locator("#sign-in").click()
    page.locator("#lobby-message").filter(has_text="Could not sign in").wait_for()
    assert page.locator("#signed-in").count() == 0
    assert page.locator("#player-name").is_enabled()
