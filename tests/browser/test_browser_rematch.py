"""A rematch in the browser: when one player of a finished game clicks *Play again*,
the other player's page offers them their seat in that same new game within seconds,
a spectator's page offers to watch it, and the new game says whose rematch it is
(``service.app.rematches``). Before, *Play again* made a game the others never heard of."""

from __future__ import annotations

import re
from typing import Any

import requests
from support.browser_pages import create_game, status
from support.http_games import HttpApi, play_randomly

RUNNING = "() => document.querySelector('main').dataset.status === 'running'"
FINISHED = "() => document.querySelector('main').dataset.status === 'finished'"


def seat_token(page: Any, game_id: str) -> str:
    return str(page.evaluate(f"JSON.parse(localStorage.getItem('tabletop.seat.{game_id}')).token"))


def test_the_other_player_is_offered_the_rematch_one_player_started(page: Any, browser: Any, web_server: Any) -> None:
    game_id = create_game(page, "schlitzohr", [None, None], name="ada", options={"turn_cap": "10"})
    friend = browser.new_context(base_url=web_server.url)
    watcher = browser.new_context(base_url=web_server.url)
    try:
        bob = friend.new_page()
        bob.goto(f"/#/games/{game_id}")
        bob.locator("#join-name").fill("bob")
        bob.locator("#join-game").click()
        bob.wait_for_function(RUNNING)
        eve = watcher.new_page()
        eve.goto(f"/#/games/{game_id}")
        eve.wait_for_function(RUNNING)
        # The game itself is played through the API with the pages' own seats (the
        # clicks of a whole game are tested elsewhere); every page follows it live.
        with requests.Session() as session:
            tokens = [seat_token(page, game_id), seat_token(bob, game_id)]
            play_randomly(HttpApi(session, web_server.url), game_id, tokens, b"browser-rematch")
        for p in (page, bob, eve):
            p.wait_for_function(FINISHED)
        assert page.locator("#play-again").inner_text() == "Play again"
        assert eve.locator("#play-again").count() == 0  # a spectator has no seat to take again

        # Bob starts the rematch: his page moves to it, he is seat 1 there again.
        bob.locator("#play-again").click()
        bob.wait_for_url(re.compile(r"#/games/(?!" + re.escape(game_id) + r"$)"))
        rematch = bob.url.rsplit("/", 1)[1]
        bob.locator("#rematch-of").wait_for()
        assert game_id in bob.locator("#rematch-of").inner_text()
        assert "You play seat 1 (bob)" in bob.locator(".who").inner_text()
        # Ada's page, still on the finished game, offers her seat in that rematch ...
        page.locator("#play-again", has_text="Join the rematch").wait_for(timeout=15_000)
        assert "Another player wants a rematch" in page.locator("#rematch").inner_text()
        # ... and the spectator's a way to watch it.
        eve.locator("#rematch-watch").wait_for(timeout=15_000)
        assert eve.locator("#rematch-watch").get_attribute("href") == f"#/games/{rematch}"
        # The lobby marks it too: a stranger sees whose table it is before taking a seat.
        eve.goto("/")
        row = eve.locator(f'li[data-game-id="{rematch}"]')
        row.wait_for(timeout=30_000)  # the lobby is a read model: within moments
        assert row.locator(".rematch-of").inner_text().strip() == "rematch"

        page.locator("#play-again").click()
        page.wait_for_url(re.compile(re.escape(f"#/games/{rematch}") + "$"))
        page.wait_for_function(RUNNING)
        assert "You play seat 0 (ada)" in page.locator(".who").inner_text()
        bob.wait_for_function(RUNNING)
        assert status(bob) == "running"
        # Back on the old game, Ada's page now leads to the rematch she holds a seat in.
        page.goto(f"/#/games/{game_id}")
        page.locator("#rematch-open").wait_for()
    finally:
        friend.close()
        watcher.close()
