"""No leak: over random full games, nothing a seat or a spectator receives holds a hidden fact.

After every command, for every seat and the spectator, the view, the legal commands,
the new events (a page) and the event stream are checked against the *true* state:
the table folded here from the complete (admin) history, independently of the
server's own cache. What is checked:

- views equal the engine's view of the true state for that viewer; and directly:
  Abluxxen -- the hand shown is the viewer's own (none for a spectator), no other
  hand and no pile card appears until the end; Schlitzohr -- an ear's colour appears
  only if it is face up or the viewer inspected it, and then it is the true one;
- legal commands are exactly the engine's for that seat (none for others);
- events (pages, stream, and each command's own outcome) hold a private part only
  for the seats in ``visible_to`` and a command only for its sender while the game
  runs; after the end they equal the stored events in full;
- the secret seed and every seat's token hash appear in nothing before the end;
  no seat's token ever appears in anything another viewer receives;
- in an invite-only game the invite code appears in nothing (it was shown once, to
  its creator), and its hash in nothing before the end.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from flask import Flask
from support.http_games import FlaskApi, play_randomly, seat_everyone
from support.sse import events

from engine.abluxxen.cards import counts_to_json
from engine.registry import get_game
from engine.schlitzohr.material import COLOURS
from engine.table import FINISHED, Table, evolve_table
from events.model.envelope import Envelope
from events.model.redaction import ADMIN
from service.bootstrap import Services

pytest_plugins = ("support.http_app",)  # fixtures: http_services, http_app, api

GAMES = [
    ("schlitzohr", 2, {"turn_cap": 30}, False),
    ("abluxxen", 2, {}, False),
    ("abluxxen", 4, {}, False),
    ("schlitzohr", 3, {"turn_cap": 20}, True),  # invite-only
]

STREAM_EVERY = 4
"""Streams are read every few commands (resuming where they stopped, so every event is
still checked for every viewer); views, legal commands and pages after every command."""


class Truth:
    """The true table of a game, folded from its complete history as the test goes."""

    def __init__(self, services: Services, game_id: str, tokens: list[str], invite: str | None = None) -> None:
        self.store = services.store
        self.game_id = game_id
        self.tokens = tokens
        self.invite = invite
        self.history: list[Envelope] = []
        self.table: Table | None = None
        self.tables: dict[int, Table] = {}  # the table right after each version
        self.seed = services.store.secret_seed(game_id)

    def refresh(self) -> Table:
        for envelope in self.store.read_range(self.game_id, ADMIN, len(self.history) + 1):
            game = get_game(envelope.data["game"] if self.table is None else self.table.game)
            self.table = evolve_table(
                game, self.table, envelope.to_event(), envelope.version, envelope.time
            )
            self.tables[envelope.version] = self.table
            self.history.append(envelope)
        assert self.table is not None
        return self.table

    @property
    def finished(self) -> bool:
        return self.table is not None and self.table.status == FINISHED

    def secrets_for(self, viewer: int | None) -> list[str]:
        """Strings ``viewer`` must not receive now."""
        others = [t for seat, t in enumerate(self.tokens) if seat != viewer]
        if self.invite is not None:
            others.append(self.invite)
        if self.finished:
            return others
        table = self.table
        assert table is not None
        hashes = [s.token_hash for s in table.seats if s.token_hash]
        if table.invite_hash is not None:
            hashes.append(table.invite_hash)
        return [self.seed, *hashes, *others]


def check_text(truth: Truth, viewer: int | None, document: Any) -> None:
    text = document if isinstance(document, str) else json.dumps(document)
    for secret in truth.secrets_for(viewer):
        assert secret not in text, f"viewer {viewer} received a secret"


def check_view(truth: Truth, viewer: int | None, view: dict[str, Any]) -> None:
    """``view`` against the true table at its version (a command's outcome may be one
    version behind the head: the seed is revealed in the batch after ``GameEnded``)."""
    table = truth.tables[view["version"]]
    game = get_game(table.game)
    assert view["state"] == game.view(table.state, viewer)
    assert view["seed"] == table.seed and (table.seed is None or truth.finished)
    over = view["state"]["result"] is not None
    if table.game == "abluxxen":
        own = None if viewer is None else counts_to_json(table.state.hands[viewer])
        assert view["state"]["hand"] == own
        assert over or ("hands" not in view["state"] and "pile" not in view["state"])
    else:
        state, shown = table.state, view["state"]
        for ear, colour in enumerate(state.colour):
            known = (
                over or ear in state.revealed or (viewer is not None and ear in state.known[viewer])
            )
            assert shown["known_colours"][ear] == (COLOURS[colour] if known else None)
            assert shown["board"]["ears"][ear]["colour"] in (
                (COLOURS[colour] if known else None),
                None,
            )
    check_text(truth, viewer, view)


def check_legal(truth: Truth, viewer: int | None, legal: dict[str, Any]) -> None:
    table = truth.tables[legal["version"]]
    expected = (
        get_game(table.game).legal_commands(table.state, viewer)
        if viewer is not None and table.status == "running"
        else []
    )
    assert legal["commands"] == expected
    check_text(truth, viewer, legal)


def check_event(truth: Truth, viewer: int | None, event: dict[str, Any]) -> None:
    """``event`` (an envelope, or an outcome's event) as ``viewer`` may see it now."""
    stored = truth.history[event["version"] - 1]
    assert event["type"] == stored.type and event["data"] == stored.data
    may_see = (
        truth.finished
        or stored.private is None
        or (viewer is not None and viewer in stored.visible_to)
    )
    assert event["private"] == (stored.private if may_see else None)
    if "command" in event:
        sent_it = truth.finished or (viewer is not None and stored.actor.get("seat") == viewer)
        assert event["command"] == (stored.command if sent_it else None)
    check_text(truth, viewer, event)


class Watcher:
    """Checks every viewer's reads after every command."""

    def __init__(self, api: FlaskApi, app: Flask, truth: Truth) -> None:
        self.api, self.app, self.truth = api, app, truth
        self.viewers: list[int | None] = [*range(len(truth.tokens)), None]
        self.paged = dict.fromkeys(self.viewers, 0)
        self.streamed = dict.fromkeys(self.viewers, 0)
        self.commands = 0

    def token(self, viewer: int | None) -> str | None:
        return None if viewer is None else self.truth.tokens[viewer]

    def after_command(self, seat: int, outcome: dict[str, Any]) -> None:
        self.truth.refresh()
        self.commands += 1
        for event in outcome["events"]:
            check_event(self.truth, seat, event)
        check_view(self.truth, seat, outcome["view"])
        for viewer in self.viewers:
            self.check_reads(viewer, streams=self.commands % STREAM_EVERY == 0)

    def check_reads(self, viewer: int | None, streams: bool = True) -> None:
        game_id, token = self.truth.game_id, self.token(viewer)
        check_view(
            self.truth, viewer, self.api.call("GET", f"/v1/games/{game_id}", token=token).body
        )
        check_legal(
            self.truth, viewer, self.api.call("GET", f"/v1/games/{game_id}/legal", token=token).body
        )
        page = self.api.call(
            "GET", f"/v1/games/{game_id}/events?after={self.paged[viewer]}&limit=500", token=token
        ).body
        for event in page["events"]:
            check_event(self.truth, viewer, event)
        self.paged[viewer] = page["head"]
        if not streams:
            return
        for event in self.stream(viewer, page["head"] - self.streamed[viewer]):
            check_event(self.truth, viewer, event.data)
            self.streamed[viewer] = event.id

    def stream(self, viewer: int | None, count: int) -> list[Any]:
        """The next ``count`` events of the viewer's stream (then hang up)."""
        if count <= 0:
            return []
        headers = {"Last-Event-ID": str(self.streamed[viewer])}
        if viewer is not None:
            headers["Authorization"] = f"Bearer {self.token(viewer)}"
        response = self.app.test_client().get(
            f"/v1/games/{self.truth.game_id}/events/stream", headers=headers, buffered=False
        )
        try:
            received = list(itertools.islice(events(response.response), count))
        finally:
            response.close()
        assert [e.id for e in received] == list(
            range(self.streamed[viewer] + 1, self.streamed[viewer] + count + 1)
        )
        return received


@pytest.mark.parametrize(
    ("game", "players", "options", "invite_only"),
    GAMES,
    ids=[f"{g}-{p}" + ("-invite" if i else "") for g, p, _, i in GAMES],
)
def test_no_response_or_stream_event_holds_a_hidden_fact(
    api: FlaskApi,
    http_app: Flask,
    http_services: Services,
    game: str,
    players: int,
    options: dict[str, Any],
    invite_only: bool,
) -> None:
    created = api.call(
        "POST", "/v1/games", body={"game": game, "players": players, "options": options, "invite_only": invite_only}
    )
    assert created.status == 201, created.body
    game_id, invite = created.body["game_id"], created.body.get("invite")
    assert (invite is not None) == invite_only
    tokens = seat_everyone(api, game_id, players, invite)
    truth = Truth(http_services, game_id, tokens, invite)
    truth.refresh()
    assert truth.table is not None and (truth.table.invite_hash is not None) == invite_only
    watcher = Watcher(api, http_app, truth)
    for viewer in watcher.viewers:
        watcher.check_reads(viewer)
    final = play_randomly(
        api, game_id, tokens, f"{game}-{players}".encode(), after=watcher.after_command
    )
    truth.refresh()
    for viewer in watcher.viewers:  # after the end (SeedRevealed included) everything is public
        watcher.check_reads(viewer)
    assert final["seed"] == truth.seed and truth.finished
