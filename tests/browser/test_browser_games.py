"""Whole games in the browser, lobby to result, through clicks only: one of Schlitzohr
and one of Abluxxen against bots; then the finished game's result, revealed seed,
verification verdict and replay (as a spectator and as a seat)."""

from __future__ import annotations

import re
from typing import Any

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
