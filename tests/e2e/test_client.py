"""``tabletop_client`` against a live server (gunicorn, real Redis, a real bot worker):
whole games, typed errors, retries that write once, and a stream that resumes
through a connection cut again and again. Every answer the client receives is also
checked against ``openapi.yaml`` (the client runs on a ``ContractSession``)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from support.bot_worker import bot_worker
from support.contract import ContractSession
from support.flaky_proxy import FlakyProxy
from support.live_server import LiveServer
from support.redis import TestRedis, delete_prefix, unique_prefix

from tabletop_client import (
    Conflict,
    Forbidden,
    NotFound,
    RateLimited,
    RuleRefused,
    Seat,
    StaleVersion,
    TabletopClient,
    Unauthorized,
)


@pytest.fixture(scope="module")
def bots(live_server: LiveServer) -> Iterator[None]:
    with bot_worker(live_server):
        yield


@pytest.fixture
def client(live_server: LiveServer) -> Iterator[TabletopClient]:
    with ContractSession() as session:
        yield TabletopClient(live_server.url, session=session)


def _port(url: str) -> int:
    return int(urlsplit(url).port or 80)


def play_to_the_end(seat: Seat, rng: random.Random) -> int:
    """Random legal commands whenever the seat must act, a long poll otherwise;
    returns how many commands it sent."""
    sent = 0
    while True:
        legal = seat.legal()
        if legal["status"] == "finished":
            return sent
        if legal["commands"]:
            seat.command(rng.choice(legal["commands"]))
            sent += 1
        else:
            seat.view(after=legal["version"], wait=5)


@pytest.mark.parametrize("game,options", [("schlitzohr", {"turn_cap": 10}), ("abluxxen", {})])
def test_a_whole_game_against_a_bot_then_its_audit(
    client: TabletopClient, bots: None, game: str, options: dict[str, int]
) -> None:
    assert {g["name"] for g in client.catalogue()["games"]} == {"schlitzohr", "abluxxen"}
    assert client.catalogue_game(game)["name"] == game
    created = client.create_game(game, 2, options=options, bots={1: "greedy"})
    assert created["status"] == "open" and created["seats"][1]["bot"] == "greedy"
    seat = client.join(created["game_id"], "ada")
    assert seat.seat == 0 and seat.version > created["version"]

    assert play_to_the_end(seat, random.Random(game)) > 0

    view = seat.view()
    if view["seed"] is None:
        # The bot's move ended it: its worker appends SeedRevealed right after GameEnded,
        # in an append of its own -- the next version, which a long poll waits for.
        view = seat.view(after=view["version"], wait=10)
    assert view["status"] == "finished" and view["result"] is not None and view["seed"]
    versions = [e["version"] for e in seat.stream()]  # a finished game: the whole history
    assert versions == list(range(1, view["version"] + 1))
    page = client.events(seat.game_id, after=0, limit=5)
    assert [e["version"] for e in page["events"]] == [1, 2, 3, 4, 5] and page["next_after"] == 5
    report = client.verification(seat.game_id)
    assert report["ok"] and report["discrepancy"] is None and report["commands"] > 0
    text, complete = client.export(seat.game_id)
    lines = [json.loads(line) for line in text.splitlines()]
    assert complete and [e["version"] for e in lines] == versions
    assert client.player("ada")["name"] == "ada"
    assert isinstance(client.list_games(game=game, limit=5)["games"], list)

    # Once more: the rematch has the same options and the bot at the same seat, which
    # sits at once, so it starts with Ada's ask.
    assert client.rematch_of(seat.game_id) is None
    again = seat.rematch()
    assert again.game_id != seat.game_id and again.seat == 0 and again.invite is None
    assert client.rematch_of(seat.game_id) == again.game_id
    rematch = again.view()
    assert rematch["rematch_of"] == seat.game_id and rematch["status"] == "running"
    assert rematch["options"] == view["options"] and rematch["seats"][1]["bot"] == "greedy"
    with pytest.raises(Conflict) as early:
        again.rematch()  # the rematch itself has not finished
    assert early.value.code == "game_not_finished"


def test_refusals_are_typed_exceptions_with_the_problem_code(client: TabletopClient) -> None:
    with pytest.raises(NotFound) as missing:
        client.view("no-such-game")
    assert missing.value.status == 404 and missing.value.code == "game_not_found"
    with pytest.raises(NotFound) as unknown:
        client.catalogue_game("chess")
    assert unknown.value.code == "unknown_game"

    game_id = client.create_game("schlitzohr", 2)["game_id"]
    ada, bob = client.join(game_id, "ada"), client.join(game_id, "bob")
    with pytest.raises(RuleRefused) as taken:
        client.join(game_id, "cy")
    assert taken.value.status == 422 and taken.value.code in {
        "no_free_seat",
        "game_already_started",
    }
    with pytest.raises(Unauthorized) as forged:
        client.legal(game_id, token=f"{game_id}.0.not-a-token")
    assert forged.value.code == "unauthenticated"

    bob.legal()
    with pytest.raises(RuleRefused) as turn:
        bob.command({"kind": "roll"})
    assert turn.value.code == "not_your_turn" and turn.value.detail

    ada.legal()
    acted_on = ada.version
    ada.command({"kind": "roll"})
    with pytest.raises(StaleVersion) as stale:
        ada.command({"kind": "roll"}, version=acted_on)
    assert stale.value.status == 409 and stale.value.code == "version_conflict"
    assert stale.value.current_version == ada.version > acted_on


def test_an_invite_only_game_through_the_client(client: TabletopClient) -> None:
    created = client.create_game("abluxxen", 2, invite_only=True)
    game_id, invite = created["game_id"], created["invite"]
    assert created["invite_only"] is True
    with pytest.raises(Forbidden) as refused:
        client.join(game_id, "eve")
    assert refused.value.status == 403 and refused.value.code == "invite_required"
    ada = client.join(game_id, "ada", invite=invite)
    renewed = ada.renew_invite()  # the first code went too far, say
    assert renewed != invite
    with pytest.raises(Forbidden):
        client.join(game_id, "eve", invite=invite)
    bob = client.join(game_id, "bob", invite=renewed)
    assert (ada.seat, bob.seat) == (0, 1)
    with pytest.raises(RuleRefused) as started:
        ada.renew_invite()
    assert started.value.code == "game_already_started"
    view = client.view(game_id)
    assert view["status"] == "running" and view["invite_only"] is True and "invite" not in view


def test_a_clocked_game_through_the_client(client: TabletopClient) -> None:
    view = client.create_game("schlitzohr", 2, clock={"per_decision_s": 60, "reserve_s": 300, "policy": "forfeit"})
    assert view["clock"] is not None
    assert (view["clock"]["per_decision_s"], view["clock"]["reserve_s"], view["clock"]["policy"]) == (60, 300, "forfeit")
    with pytest.raises(RuleRefused) as bad:
        client.create_game("schlitzohr", 2, clock={"per_decision_s": 0, "policy": "forfeit"})
    assert bad.value.code == "invalid_clock"


def test_compact_legal_and_a_stream_ticket_through_the_client(client: TabletopClient) -> None:
    game_id = client.create_game("schlitzohr", 2)["game_id"]
    ada, _bob = client.join(game_id, "ada"), client.join(game_id, "bob")
    full = client.legal(game_id, token=ada.token)
    compact = client.legal_compact(game_id, token=ada.token)
    assert compact["version"] == full["version"]
    # At a turn's start nothing is a k-of-n pick: both forms list the same commands.
    assert compact["commands"] == full["commands"] == [{"kind": "roll"}, {"kind": "joker"}]
    ticket = client.stream_ticket(game_id, token=ada.token)
    assert ticket["seat"] == 0 and ticket["expires_in"] > 0 and ticket["ticket"] not in ada.token
    with pytest.raises(Unauthorized):
        client.stream_ticket(game_id, token=f"{game_id}.0.not-a-token")


def test_an_account_through_the_client_joins_lists_and_takes_its_seat_back(
    client: TabletopClient,
) -> None:
    name = f"cl{random.randrange(16**8):08x}"  # registered names are reserved for good
    account = client.register(name)
    assert account["name"] == name and account["player_key"]
    with pytest.raises(Conflict) as taken:
        client.register(name.upper())  # a look-alike of a registered name
    assert taken.value.code == "name_registered"
    game_id = client.create_game("schlitzohr", 2)["game_id"]
    seat = client.join(game_id, player_key=account["player_key"])
    assert seat.name == name and seat.seat == 0
    assert [g["game_id"] for g in client.my_games(account["player_key"])["games"]] == [game_id]
    assert client.my_account(account["player_key"]) == {"name": account["name"]}
    again = client.reissue_seat_token(game_id, seat.seat, account["player_key"])
    assert again.token != seat.token and again.seat == seat.seat
    with pytest.raises(Unauthorized):
        client.legal(game_id, token=seat.token)  # the lost token is revoked
    assert again.legal()["you"] == 0
    ticket = client.player_stream_ticket(account["player_key"])
    assert ticket["seat"] is None and ticket["expires_in"] > 0
    # The key leaked: replace it. The old one is refused at once by the process that
    # replaced it (no retry of the rotation either), the new one acts for the account.
    rotated = client.rotate_key(account["player_key"])
    assert rotated["name"] == name and rotated["player_key"] != account["player_key"]
    with pytest.raises(Unauthorized):
        client.rotate_key(account["player_key"])
    assert [g["game_id"] for g in client.my_games(rotated["player_key"])["games"]] == [game_id]


def test_a_stale_command_is_resent_at_the_current_version_only_if_still_legal(
    client: TabletopClient,
) -> None:
    game_id = client.create_game("abluxxen", 2)["game_id"]
    ada, bob = client.join(game_id, "ada"), client.join(game_id, "bob")
    play = ada.legal()["commands"][0]
    seen_by_bob = bob.legal()["version"]
    bob.version = ada.version - 1  # bob decided on an older view than there is
    with pytest.raises(StaleVersion):
        bob.command({"kind": "pass"})
    assert bob.version == seen_by_bob  # the refusal told it where the game is

    ada.version -= 1  # ada's command is stale, but still legal now: resent
    outcome = ada.command(play, refresh_on_stale=True)
    assert outcome["version"] > seen_by_bob
    ada.version -= 1  # the same play again is no longer legal: the StaleVersion stands
    with pytest.raises(StaleVersion):
        ada.command(play, refresh_on_stale=True)


def test_a_command_whose_answer_is_lost_is_retried_with_its_key_and_written_once(
    live_server: LiveServer, client: TabletopClient
) -> None:
    game_id = client.create_game("schlitzohr", 2)["game_id"]
    ada = client.join(game_id, "ada")
    client.join(game_id, "bob")
    ada.legal()
    before = ada.version
    # Every first attempt's answer is lost on the way back; the retry gets through.
    with FlakyProxy(_port(live_server.url), lambda n: 0 if n == 0 else None) as proxy:
        flaky = TabletopClient(proxy.url, retries=2, backoff_s=0.01)
        seat = flaky.seat(game_id, ada.seat, ada.token)
        seat.version = before
        outcome = seat.command({"kind": "roll"})
        assert proxy.cut == 1 and proxy.connections == 2
    rolled = [e for e in client.all_events(game_id) if e["type"] == "DieRolled"]
    assert len(rolled) == 1  # written once, though the server saw it twice
    assert outcome["version"] == client.view(game_id)["version"] == before + len(outcome["events"])


def test_the_stream_resumes_through_cut_connections_without_gap_or_duplicate(
    live_server: LiveServer, client: TabletopClient, bots: None
) -> None:
    created = client.create_game(
        "schlitzohr", 2, options={"turn_cap": 10}, bots={0: "random", 1: "random"}
    )
    game_id = created["game_id"]
    head = client.view(game_id, after=0, wait=0)["version"]
    # Each connection passes ~3 KB, a few events, then is cut mid-event.
    with FlakyProxy(_port(live_server.url), lambda n: 3000) as proxy:
        flaky = TabletopClient(proxy.url, retries=3, backoff_s=0.01)
        versions = [e["version"] for e in flaky.stream(game_id)]
        assert proxy.cut > 3
    final = client.view(game_id)
    assert final["status"] == "finished" and versions == list(range(1, final["version"] + 1))
    assert final["version"] >= head


@pytest.fixture(scope="module")
def limited_server(redis_target: TestRedis) -> Iterator[LiveServer]:
    prefix = unique_prefix()
    server = LiveServer(redis_target.url, prefix, rate_limit_per_minute=3).start()
    yield server
    server.stop()
    client = redis_target.client()
    delete_prefix(client, prefix)
    client.close()


def test_a_rate_limit_is_a_typed_exception_with_retry_after(limited_server: LiveServer) -> None:
    client = TabletopClient(limited_server.url)
    with pytest.raises(RateLimited) as limited:
        for _ in range(10):
            client.catalogue()
    assert limited.value.status == 429 and limited.value.code == "rate_limited"
    assert limited.value.retry_after > 0


def test_seats_resign_through_the_client_even_from_a_stale_version(client: TabletopClient) -> None:
    game_id = client.create_game("schlitzohr", 3)["game_id"]
    ada, bob, cleo = (client.join(game_id, name) for name in ("ada", "bob", "cleo"))
    cleo.version = 1  # cleo decided long ago: a resignation is sent again where the game is
    left = cleo.resign()
    assert [e["type"] for e in left["events"]] == ["SeatForfeited"]
    assert left["view"]["state"]["forfeited"] == [cleo.seat]
    with pytest.raises(RuleRefused) as again:
        cleo.resign()
    assert again.value.code == "seat_out"
    ended = bob.resign()
    assert ended["view"]["status"] == "finished"
    assert ended["view"]["result"]["winners"] == [ada.seat]
    assert client.verification(game_id)["ok"] is True
