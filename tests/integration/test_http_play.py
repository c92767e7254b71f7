"""The REST API on real Redis, happy paths: catalogue, lobby, play, versions, history, audit."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from support.http_games import FlaskApi, all_events, create_game, play_randomly, seat_everyone
from support.http_setup import ADMIN_TOKEN

from engine.registry import game_names, get_game
from events.archive.lazy import LazyArchive
from events.archive.store import open_archive
from events.projections import ReadModels, Updater
from events.projections.totals_backfill import backfill_account_totals
from events.redis_adapter.reader import RedisEventReader
from service.app.archiving import archive_game
from service.bootstrap import Services

pytest_plugins = ("support.http_app",)  # fixtures: http_services, http_app, api


def test_the_catalogue_lists_every_game_with_options_and_commands(api: FlaskApi) -> None:
    games = api.call("GET", "/v1/catalogue").body["games"]
    assert [g["name"] for g in games] == game_names()
    abluxxen = api.call("GET", "/v1/catalogue/abluxxen").body
    rounds = next(o for o in abluxxen["options"] if o["name"] == "rounds")
    assert (rounds["default"], rounds["minimum"], rounds["maximum"]) == (1, 1, 10)
    assert {c["kind"] for c in abluxxen["commands"]} >= {"play", "take", "leave", "draw", "pass"}
    assert api.call("GET", "/v1/catalogue/chess").code == "unknown_game"


@pytest.mark.parametrize("game", game_names())
def test_a_full_game_over_http_with_one_token_per_seat(
    api: FlaskApi, http_services: Services, game: str
) -> None:
    players = get_game(game).min_players
    game_id = create_game(
        api, game, players, options={"turn_cap": 40} if game == "schlitzohr" else {}
    )
    tokens = seat_everyone(api, game_id, players)
    final = play_randomly(api, game_id, tokens, game.encode())
    assert final["status"] == "finished" and final["result"]["winners"]
    assert final["seed"] is not None and final["state"]["result"] == final["result"]
    events = all_events(api, game_id)
    assert [e["version"] for e in events] == list(range(1, final["version"] + 1))
    assert events[-1]["type"] == "SeedRevealed"
    report = api.call("GET", f"/v1/games/{game_id}/verification").body
    assert report["ok"] and report["result"]["winners"] == final["result"]["winners"]
    exported = api.call("GET", f"/v1/games/{game_id}/export")
    assert exported.headers["Tabletop-Export"] == "complete"
    assert len(exported.body.splitlines()) == final["version"]


def test_lobby_seats_bots_at_once_and_starts_when_full(api: FlaskApi) -> None:
    created = api.call(
        "POST", "/v1/games", body={"game": "abluxxen", "players": 3, "bots": {"1": "greedy"}}
    )
    assert (
        created.status == 201
        and created.headers["Location"] == f"/v1/games/{created.body['game_id']}"
    )
    game_id = created.body["game_id"]
    assert created.body["status"] == "open" and created.body["seats"][1] == {
        "seat": 1,
        "name": "greedy-bot-1",
        "bot": "greedy",
        "guest": False,
    }
    ada = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": "ada"})
    assert (
        ada.status == 201 and ada.body["seat"] == 0 and ada.headers["Cache-Control"] == "no-store"
    )
    # Her seat's hand is dealt, but shown to nobody while the seat may change hands
    # (she leaves it to cy below): tests/security/test_seat_changes.py.
    assert ada.body["view"]["state"]["hand"] is None and ada.body["view"]["you"] == 0
    left = api.call("DELETE", f"/v1/games/{game_id}/seats/0", token=ada.body["token"])
    assert left.status == 200 and left.body["seats"][0]["name"] is None
    assert (
        api.call("GET", f"/v1/games/{game_id}", token=ada.body["token"]).code == "unauthenticated"
    )
    bob = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": "bob", "seat": 2})
    cy = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": "cy"})
    assert (bob.body["seat"], cy.body["seat"]) == (2, 0)
    view = api.call("GET", f"/v1/games/{game_id}").body
    assert view["status"] == "running" and view["to_act"] == {"0": ["play"]}
    assert cy.body["view"]["state"]["hand"]  # the start: cy's own hand, only to cy


def test_a_game_whose_bot_must_act_waits_for_it(api: FlaskApi) -> None:
    game_id = create_game(api, "schlitzohr", 2, bots={"0": "random"})
    token = seat_everyone_from(api, game_id, seat=1)
    view = api.call("GET", f"/v1/games/{game_id}", token=token).body
    assert view["status"] == "running" and view["to_act"] == {"0": ["roll", "joker"]}
    refused = api.call(
        "POST",
        f"/v1/games/{game_id}/commands",
        token=token,
        body={"command": {"kind": "roll"}, "expected_version": view["version"]},
    )
    assert refused.status == 422 and refused.code == "not_your_turn"


def seat_everyone_from(api: FlaskApi, game_id: str, seat: int) -> str:
    reply = api.call("POST", f"/v1/games/{game_id}/seats", body={"name": "ada", "seat": seat})
    assert reply.status == 201
    return str(reply.body["token"])


def test_views_carry_the_version_as_etag_and_answer_304(api: FlaskApi) -> None:
    game_id = create_game(api, "schlitzohr", 2)
    tokens = seat_everyone(api, game_id, 2)
    first = api.call("GET", f"/v1/games/{game_id}", token=tokens[0])
    etag = first.headers["ETag"]
    assert etag == f'"{first.body["version"]}"' and first.headers["Vary"] == "Authorization"
    assert (
        api.call(
            "GET", f"/v1/games/{game_id}", token=tokens[0], headers={"If-None-Match": etag}
        ).status
        == 304
    )
    assert (
        api.call(
            "GET", f"/v1/games/{game_id}/legal", token=tokens[0], headers={"If-None-Match": etag}
        ).status
        == 304
    )
    api.call(
        "POST",
        f"/v1/games/{game_id}/commands",
        token=tokens[0],
        body={"command": {"kind": "roll"}},
        headers={"If-Match": etag},
    )
    again = api.call(
        "GET", f"/v1/games/{game_id}", token=tokens[0], headers={"If-None-Match": etag}
    )
    assert again.status == 200 and again.body["version"] > first.body["version"]


def test_the_view_at_a_past_version_replays_the_history(api: FlaskApi) -> None:
    game_id = create_game(api, "abluxxen", 2)
    tokens = seat_everyone(api, game_id, 2)
    before = api.call("GET", f"/v1/games/{game_id}", token=tokens[0]).body
    legal = api.call("GET", f"/v1/games/{game_id}/legal", token=tokens[0]).body["commands"]
    api.call(
        "POST",
        f"/v1/games/{game_id}/commands",
        token=tokens[0],
        body={"command": legal[0], "expected_version": before["version"]},
    )
    past = api.call("GET", f"/v1/games/{game_id}?at={before['version']}", token=tokens[0])
    assert past.body == before and past.headers["ETag"] == f'"{before["version"]}"'
    assert api.call("GET", f"/v1/games/{game_id}?at=999").code == "version_out_of_range"
    # `wait`/`after` next to `at` are ignored (the contract admits them together): the
    # past view comes at once, although the game is past `after`'s version already.
    combined = f"/v1/games/{game_id}?at={before['version']}&wait=60&after=0"
    assert api.call("GET", combined, token=tokens[0]).body == before


def test_a_long_poll_returns_as_soon_as_the_game_moves(api: FlaskApi, http_app) -> None:
    game_id = create_game(api, "schlitzohr", 2)
    tokens = seat_everyone(api, game_id, 2)
    version = api.call("GET", f"/v1/games/{game_id}").body["version"]
    mover = FlaskApi(http_app.test_client())

    def move() -> None:
        time.sleep(0.2)
        mover.call(
            "POST",
            f"/v1/games/{game_id}/commands",
            token=tokens[0],
            body={"command": {"kind": "roll"}, "expected_version": version},
        )

    thread = threading.Thread(target=move)
    start = time.monotonic()
    thread.start()
    polled = api.call("GET", f"/v1/games/{game_id}?wait=10&after={version}", token=tokens[1])
    thread.join()
    assert polled.body["version"] == version + 1
    assert 0.15 < time.monotonic() - start < 1.9  # woke by the event, not the 2 s cap
    timed_out = api.call(
        "GET", f"/v1/games/{game_id}?wait=0.3", headers={"If-None-Match": f'"{version + 1}"'}
    )
    assert timed_out.status == 304


def test_an_idempotent_retry_answers_the_same_and_writes_nothing(
    api: FlaskApi, http_services: Services
) -> None:
    game_id = create_game(api, "schlitzohr", 2)
    tokens = seat_everyone(api, game_id, 2)
    version = api.call("GET", f"/v1/games/{game_id}").body["version"]
    send = {"command": {"kind": "roll"}, "expected_version": version}
    first = api.call(
        "POST",
        f"/v1/games/{game_id}/commands",
        token=tokens[0],
        body=send,
        headers={"Idempotency-Key": "k-1"},
    )
    head = http_services.store.head(game_id).version
    again = api.call(
        "POST",
        f"/v1/games/{game_id}/commands",
        token=tokens[0],
        body=send,
        headers={"Idempotency-Key": "k-1"},
    )
    assert (again.status, again.body, again.headers["ETag"]) == (
        first.status,
        first.body,
        first.headers["ETag"],
    )
    assert http_services.store.head(game_id).version == head


def test_history_pages_link_to_the_next_page(api: FlaskApi) -> None:
    game_id = create_game(api, "abluxxen", 2)
    seat_everyone(api, game_id, 2)
    page = api.call("GET", f"/v1/games/{game_id}/events?limit=3")
    assert [e["version"] for e in page.body["events"]] == [1, 2, 3]
    assert page.body["next_after"] == 3 and "after=3&limit=3" in page.headers["Link"]
    seen = [e["version"] for e in page.body["events"]]
    while page.body["next_after"] is not None:
        page = api.call(
            "GET", f"/v1/games/{game_id}/events?after={page.body['next_after']}&limit=3"
        )
        seen += [e["version"] for e in page.body["events"]]
    assert seen == list(range(1, page.body["head"] + 1)) and "Link" not in page.headers


def test_the_admin_token_reads_everything_and_exports_completely(api: FlaskApi) -> None:
    game_id = create_game(api, "abluxxen", 2)
    seat_everyone(api, game_id, 2)
    as_admin = api.call("GET", f"/v1/games/{game_id}/events", token=ADMIN_TOKEN).body["events"]
    as_spectator = api.call("GET", f"/v1/games/{game_id}/events").body["events"]
    dealt = [e for e in as_admin if e["type"] == "HandDealt"]
    assert all(e["private"]["cards"] for e in dealt) and not any(e["redacted"] for e in as_admin)
    assert all(e["private"] is None for e in as_spectator if e["type"] == "HandDealt")
    full = api.call("GET", f"/v1/games/{game_id}/export", token=ADMIN_TOKEN)
    redacted = api.call("GET", f"/v1/games/{game_id}/export")
    assert (
        full.headers["Tabletop-Export"] == "complete"
        and redacted.headers["Tabletop-Export"] == "redacted"
    )
    assert '"redacted":true' in redacted.body and '"redacted"' not in full.body
    assert api.call("GET", f"/v1/games/{game_id}/verification").code == "game_not_finished"


def test_the_lobby_lists_games_by_type_and_status_with_cursors(
    api: FlaskApi, http_services: Services
) -> None:
    ids = [create_game(api, "abluxxen", 2) for _ in range(3)] + [create_game(api, "schlitzohr", 2)]
    seat_everyone(api, ids[0], 2)
    updater = Updater(
        http_services.store, ReadModels(http_services.redis, http_services.store.prefix)
    )
    for game_id in ids:
        updater.update(game_id)  # what the projector does after each append
    first = api.call("GET", "/v1/games?game=abluxxen&status=open&limit=1").body
    second = api.call(
        "GET", f"/v1/games?game=abluxxen&status=open&limit=1&cursor={first['next_cursor']}"
    ).body
    assert [g["game_id"] for g in first["games"] + second["games"]] == [ids[2], ids[1]]
    assert second["next_cursor"] is None
    running = api.call("GET", "/v1/games?status=running").body["games"]
    assert [g["game_id"] for g in running] == [ids[0]]
    assert api.call("GET", "/v1/games?cursor=nonsense").code == "invalid_parameter"
    assert api.call("GET", "/v1/players/player0").body == {
        "name": "player0",
        "games": 0,
        "wins": 0,
        "points": 0,
        "registered": False,
        "ratings": {  # guests are not rated
            game: {"rating": None, "history": [], "history_next": None}
            for game in ("abluxxen", "schlitzohr")
        },
    }


def test_a_registered_players_totals_hold_its_own_games_only(api: FlaskApi, http_services: Services) -> None:
    # Totals were kept by seat name: a guest who sat as "zoe" before the name was
    # registered (or anyone, to pad or spoil it) added to the account's totals.
    updater = Updater(http_services.store, ReadModels(http_services.redis, http_services.store.prefix))

    def play(names_or_keys: list[tuple[str, str | None]], seed: bytes) -> str:
        game_id = create_game(api, "schlitzohr", 2, options={"turn_cap": 10})
        tokens = []
        for name, player_key in names_or_keys:
            body = {} if player_key else {"name": name}
            joined = api.call("POST", f"/v1/games/{game_id}/seats", token=player_key, body=body)
            assert joined.status == 201, joined.body
            tokens.append(joined.body["token"])
        play_randomly(api, game_id, tokens, seed)
        updater.update(game_id)  # what the projector does after each append
        return game_id

    play([("zoe", None), ("bea", None)], b"before")  # a guest as "zoe"
    play([("zoe", None), ("cy", None)], b"before, again")
    player_key = api.call("POST", "/v1/players", body={"name": "zoe"}).body["player_key"]
    play([("zoe", player_key), ("bea", None)], b"the account's own")
    zoe = api.call("GET", "/v1/players/zoe").body
    assert (zoe["registered"], zoe["games"]) == (True, 1)
    assert api.call("GET", "/v1/players/bea").body["games"] == 2  # guests count by name


def test_an_accounts_games_counted_by_name_before_are_counted_by_account_once(
    api: FlaskApi, http_services: Services, tmp_path: Path
) -> None:
    prefix, client = http_services.store.prefix, http_services.redis
    models = ReadModels(client, prefix)
    updater, keys = Updater(http_services.store, models), models.keys
    player_key = api.call("POST", "/v1/players", body={"name": "ann"}).body["player_key"]
    games = []
    for seed in (b"old read models", b"archived since"):
        game_id = create_game(api, "schlitzohr", 2, options={"turn_cap": 10})
        tokens = [
            api.call("POST", f"/v1/games/{game_id}/seats", token=player_key, body={}).body["token"],
            api.call("POST", f"/v1/games/{game_id}/seats", body={"name": "bo"}).body["token"],
        ]
        play_randomly(api, game_id, tokens, seed)
        updater.update(game_id)
        games.append(game_id)
    # As the read models of a store projected before accounts were counted apart: the
    # account's games under its name, nothing under the account, no backfill yet.
    client.delete(keys.account_counted("ann"), keys.account_totals("ann"), keys.totals_by_account)
    client.sadd(keys.player_counted("ann"), *games)
    client.hset(keys.player_totals("ann"), mapping={"games": 2, "wins": 0, "points": 0})
    # One of them has moved to the archive since (its totals and lobby entry stay).
    archive_url = f"sqlite:///{tmp_path / 'archive.sqlite3'}"
    archive_game(client, open_archive(archive_url), prefix, games[1])
    history = RedisEventReader(client, prefix=prefix, archive=LazyArchive(archive_url))
    assert api.call("GET", "/v1/players/ann").body["games"] == 0
    assert backfill_account_totals(updater, history) == 2
    assert api.call("GET", "/v1/players/ann").body["games"] == 2
    assert backfill_account_totals(updater, history) == 0  # done: marked
    client.delete(keys.totals_by_account)
    assert backfill_account_totals(updater, history) == 0  # run again: counts nothing twice
    assert api.call("GET", "/v1/players/ann").body["games"] == 2


@pytest.mark.parametrize(
    "name", ["x" * 41, "a\u0000b", "a\u202eb", " ada", "ada ", "a\tb"], ids=["long", "nul", "bidi", "lead", "trail", "tab"]
)
def test_a_name_no_player_can_have_is_not_found(api: FlaskApi, name: str) -> None:
    quoted = quote(name, safe="")
    for path in (f"/v1/players/{quoted}", f"/v1/ratings/abluxxen/players/{quoted}"):
        reply = api.call("GET", path)
        assert (reply.status, reply.code) == (404, "player_not_found"), (path, reply.body)


def test_a_decomposed_spelling_finds_the_player(api: FlaskApi) -> None:
    game_id = create_game(api, "schlitzohr", 2)
    api.call("POST", f"/v1/games/{game_id}/seats", body={"name": "Zo\u00eb"})  # stored as sent: NFC
    decomposed = quote("Zoe\u0308", safe="")
    assert api.call("GET", f"/v1/players/{decomposed}").body["name"] == "Zo\u00eb"
    assert api.call("GET", f"/v1/ratings/abluxxen/players/{decomposed}").body["name"] == "Zo\u00eb"


def test_probes_metrics_contract_and_docs(api: FlaskApi) -> None:
    assert api.call("GET", "/healthz").body == {"status": "ok"}
    assert api.call("GET", "/readyz").body == {"status": "ready"}
    game_id = create_game(api, "schlitzohr", 2)
    tokens = seat_everyone(api, game_id, 2)
    api.call(
        "POST",
        f"/v1/games/{game_id}/commands",
        token=tokens[1],
        body={"command": {"kind": "roll"}, "expected_version": 5},
    )
    api.call(
        "POST",
        f"/v1/games/{game_id}/commands",
        token=tokens[0],
        body={"command": {"kind": "roll"}, "expected_version": 1},
    )
    assert api.call("GET", "/metrics").status == 401  # the operator's only
    assert api.call("GET", "/metrics", token=tokens[0]).status == 403
    metrics = api.call("GET", "/metrics", token=ADMIN_TOKEN).body
    assert 'tabletop_rule_violations_total{code="not_your_turn"}' in metrics
    assert "tabletop_version_conflicts_total" in metrics
    assert (
        'tabletop_http_requests_total{method="POST",route="/v1/games/<game_id>/commands",status="409"}'
        in metrics
    )
    spec = api.call("GET", "/openapi.yaml")
    assert spec.status == 200 and spec.body.startswith("openapi: 3.1")
    docs = api.call("GET", "/docs").body
    assert "/v1/games/{game_id}/commands" in docs and "Idempotency-Key" in docs
