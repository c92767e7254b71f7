"""Whole games in the browser, lobby to result, through clicks only: one of Schlitzohr
and one of Abluxxen against bots; then the finished game's result, revealed seed,
verification verdict and replay (as a spectator and as a seat)."""

from __future__ import annotations

import re
from typing import Any

import requests
from support.browser_pages import create_game, log_versions, play_to_the_end, version


def check_finished_page(page: Any, game_id: str) -> None:
    """Result, seed, verdict; the replay slider at version 1 and back at the end."""
    page.locator("#verdict.ok").wait_for()
    assert "Verified by the server: ok" in page.locator("#verdict").inner_text()
    assert re.fullmatch(r"[0-9a-f]{64}", page.locator("#seed").inner_text())
    assert page.locator("table.result tbody tr").count() == 2
    assert page.locator("table.result tr.winner").count() >= 1
    head = version(page)
    page.locator("#replay-open").click()
    slider = page.locator("#replay-version")
    slider.wait_for()
    page.locator("#replay-status").filter(has_text=f"Version {head} ").wait_for()
    slider.focus()
    page.keyboard.press("Home")
    page.locator("#replay-status").filter(has_text="Version 1 (open), seen as a spectator").wait_for()
    page.locator("#replay-as").select_option("0")
    page.locator("#replay-status").filter(has_text="Version 1 (open), seen as seat 0").wait_for()
    page.locator("#replay-next").click()
    page.locator("#replay-status").filter(has_text="Version 2 ").wait_for()


def test_a_whole_schlitzohr_game_against_a_bot_by_clicks(page: Any) -> None:
    game_id = create_game(page, "schlitzohr", [None, "greedy"], options={"turn_cap": "10"})
    page.locator("#board").wait_for()
    assert "You play seat 0 (ada)" in page.locator(".who").inner_text()
    commands = play_to_the_end(page, "schlitzohr")
    assert commands >= 5  # five turns of ours at least (turn cap 10, two seats)
    check_finished_page(page, game_id)
    # The stream was reopened every few seconds (sse_max_s); the log still has every
    # version it received, once, in a row.
    versions = log_versions(page)
    assert versions == list(range(versions[0], versions[-1] + 1)), versions
    assert versions[-1] == version(page)
    # Play again: the same game, options and bot, this player in the same seat.
    page.locator("#play-again").click()
    page.wait_for_url(re.compile(r"#/games/(?!" + re.escape(game_id) + r"$)"))
    page.locator("#board").wait_for()
    assert "You play seat 0 (ada)" in page.locator(".who").inner_text()
    assert game_id in page.locator("#rematch-of").inner_text()  # the new game says whose rematch it is
    again = page.url.rsplit("/", 1)[1]
    view = requests.get(f"{page.url.split('#')[0]}v1/games/{again}", timeout=10).json()
    assert view["status"] == "running" and view["options"]["turn_cap"] == 10
    assert [(s["name"], s["bot"]) for s in view["seats"]] == [("ada", None), ("greedy-bot-1", "greedy")]


def test_a_whole_abluxxen_game_against_a_bot_by_clicks(page: Any) -> None:
    game_id = create_game(page, "abluxxen", [None, "random"])
    page.locator("#hand-title").wait_for()
    commands = play_to_the_end(page, "abluxxen")
    assert commands >= 3
    check_finished_page(page, game_id)
    # Replayed as seat 0 mid-game, the hand shows; as a spectator it does not.
    page.locator("#replay-version").focus()
    page.keyboard.press("End")
    for _ in range(5):
        page.keyboard.press("ArrowLeft")
    mid = version(page) - 5
    page.locator("#replay-status").filter(has_text=f"Version {mid} (running)").wait_for()
    page.locator("#replay-as").select_option("0")
    page.locator("#replay-status").filter(has_text="seen as seat 0").wait_for()
    page.locator(".replay-board #hand-title").wait_for()
    page.locator("#replay-as").select_option("")
    page.locator("#replay-status").filter(has_text="seen as a spectator").wait_for()
    assert page.locator(".replay-board #hand-title").count() == 0


def test_a_game_with_a_turn_clock_is_created_from_the_form_and_counts_down(
    page: Any, browser: Any, web_server: Any
) -> None:
    """The clock is what keeps a walked-away player from holding a game up (docs/security.md):
    people choose it in the form, and see the rules and the time left on the game page."""
    game_id = create_game(page, "schlitzohr", [None, "greedy"], clock=("fast", "forfeit"))
    view = requests.get(f"{web_server.url}/v1/games/{game_id}", timeout=10).json()
    assert view["clock"]["per_decision_s"] == 30 and view["clock"]["reserve_s"] == 120
    assert view["clock"]["policy"] == "forfeit"
    page.locator("#clock").filter(has_text="Turn clock: 30 s a decision + 2 min in reserve").wait_for()
    assert "when time runs out, the player forfeits" in page.locator("#clock").inner_text()
    # Our turn (seat 0 starts): our own time, counted down from 2:30 at most.
    page.locator("#countdown").filter(has_text="Your time: ").wait_for()
    first = page.locator("#countdown").inner_text()
    assert re.fullmatch(r"Your time: [0-2]:[0-5]\d", first), first
    page.wait_for_function("t => document.querySelector('#countdown').textContent !== t", arg=first)
    # A spectator (another browser profile: no seat kept) sees whose time it is, by name.
    other = browser.new_context(base_url=web_server.url)
    try:
        watcher = other.new_page()
        watcher.goto(f"/#/games/{game_id}")
        watcher.locator("#countdown").filter(has_text="ada's time: ").wait_for(timeout=30_000)
    finally:
        other.close()


def test_a_game_without_a_clock_shows_none(page: Any) -> None:
    create_game(page, "schlitzohr", [None, "greedy"])
    page.locator("#board").wait_for()
    assert page.locator("#clock").is_hidden()
    assert page.locator("#countdown").inner_text() == ""


def test_a_seat_is_left_before_the_start_and_the_tab_title_says_whose_turn(page: Any, web_server: Any) -> None:
    """A person who changes their mind gives the seat back (else it stays held until
    the game expires unstarted); in another tab, the title shows it is their move."""
    game_id = create_game(page, "schlitzohr", [None, None])
    page.locator("#leave-seat").click()
    page.locator(".who").filter(has_text="You are watching as a spectator.").wait_for()
    view = requests.get(f"{web_server.url}/v1/games/{game_id}", timeout=10).json()
    assert view["status"] == "open" and view["seats"][0]["name"] is None
    assert page.locator("#leave-seat").count() == 0
    page.locator("#join-name").fill("ada")
    page.locator("#join-game").click()  # back in: the lowest free seat, seat 0 again
    page.locator(".who").filter(has_text="You play seat 0 (ada).").wait_for()
    assert not page.title().startswith("Your turn")
    joined = requests.post(f"{web_server.url}/v1/games/{game_id}/seats", json={"name": "bob"}, timeout=10)
    assert joined.status_code == 201  # the game starts; seat 0 moves first
    page.wait_for_function("() => document.title.startsWith('Your turn · Schlitzohr')")
    assert page.locator("#leave-seat").count() == 0  # no leaving a running game

