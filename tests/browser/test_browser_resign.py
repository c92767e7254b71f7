"""Resigning in the browser (``engine.resign``): *Resign* asks first, *Keep playing*
changes nothing, *Yes, resign* gives the game up -- on the player's turn or not. A
Schlitzohr page then watches the bots play on with the seat marked out; an Abluxxen
game ends at once with the other seat the winner.

Before, a person could only close the tab: the others waited for a turn clock or for
the game to expire idle."""

from __future__ import annotations

from typing import Any

import requests
from support.browser_pages import create_game, status, version

FINISHED = "() => document.querySelector('main').dataset.status === 'finished'"


def game_view(page: Any, game_id: str) -> Any:
    return requests.get(f"{page.url.split('#')[0]}v1/games/{game_id}", timeout=10).json()


def test_a_schlitzohr_player_resigns_after_confirming_and_watches_the_bots_play_on(page: Any) -> None:
    game_id = create_game(page, "schlitzohr", [None, "random", "random"], options={"turn_cap": "40"})
    page.locator("#board").wait_for()
    at = version(page)
    page.locator("#resign").click()
    assert "You cannot come back" in page.locator("#resign-question").inner_text()
    assert page.evaluate("document.activeElement.id") == "resign-no"  # a stray Enter keeps playing
    page.locator("#resign-no").click()  # changed their mind: nothing was sent
    page.locator("#resign").wait_for()
    assert game_view(page, game_id)["state"]["forfeited"] == []
    assert version(page) >= at
    page.locator("#resign").click()
    page.locator("#resign-yes").click()
    page.locator(".who", has_text="are out of the game; it plays on without you").wait_for()
    assert page.locator("#resign").count() == 0
    page.locator('.seats-panel li.seat.out[data-seat="0"]', has_text="(out)").wait_for()
    page.locator(".log li", has_text="is out of the game").first.wait_for()
    assert game_view(page, game_id)["state"]["forfeited"] == [0]
    # The bots play on without the seat, and the page follows them to the end.
    page.wait_for_function(FINISHED, timeout=60_000)
    rows = page.locator("table.result tbody tr").all_inner_texts()
    assert ["(out)" in row for row in rows] == [True, False, False], rows  # the result says who left
    result = game_view(page, game_id)["result"]
    assert 0 not in result["winners"] and result["reason"] in ("turn_cap", "all_ears_home", "forfeit")


def test_an_abluxxen_player_resigns_and_the_game_ends_with_the_bot_the_winner(page: Any) -> None:
    game_id = create_game(page, "abluxxen", [None, "greedy"])
    page.locator("#resign").click()
    page.locator("#resign-yes").click()
    page.wait_for_function(FINISHED)
    assert status(page) == "finished"
    assert page.locator("table.result tr.winner").inner_text().count("(winner)") == 1
    assert "greedy-bot-1" in page.locator("table.result tr.winner").inner_text()
    assert "Ended: forfeit" in page.locator("#finished-title + table + p").inner_text()
    page.locator("#verdict.ok").wait_for()  # the resignation re-runs like any command
    assert game_view(page, game_id)["result"]["winners"] == [1]
