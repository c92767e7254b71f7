"""The guessing attack on the hash chain (issue 11, finding 1) -- the acceptance test of seal 2.

The attack: a viewer holds an event whose private part was redacted for it, and
every other field of that event. Under seal 1 the event's ``hash`` covered the
private part, so the viewer could hash each candidate private part together with
the public fields and see which one reproduces the hash -- a guess oracle. The
domains are small: a pile-drawn Abluxxen card is one of 14 values, a Schlitzohr
inspection at most 4**k colourings, and the 16 ear colours of ``GameSetUp`` about
63 million arrangements (minutes of plain-Python CPU).

What this module does, against a live server (gunicorn, real Redis, real HTTP):

1. plays several real games of both kinds over HTTP, steering the random play
   towards peeks/inspections and pile draws, and records, for every seat and a
   spectator, exactly the event pages it received while the game ran;
2. for every event carrying a private part and every viewer it was hidden from,
   runs the attack on what that viewer received: every candidate private part is
   plugged into every public formula (the seal-1 hash, the seal-2 hash with the
   hidden parts filled in, the digest formula keyed with every public value) and
   compared with the event's ``hash`` and digests. Under seal 2 it must recover
   nothing -- and even the *true* private part must reproduce nothing;
3. shows the test can fail: the same finished history (admin export) re-sealed with
   the pure seal-1 function (``events.chain.sealing.seal_v1``), redacted for each viewer by
   the same ``events.model.redaction.redact``, falls to the very same attack: 100 % of
   the private parts are recovered.

Bounded CPU: for list-valued private parts whose full domain is too large for a test
(``GameSetUp`` colours, ``HandDealt`` hands, ``DeckShuffled`` orders) the attacker is
*given* the true values outside a window of a few positions and enumerates the
window -- a stronger attacker than a real one, so "recovers nothing" is the stronger
claim, and under seal 1 it shows the same oracle the full enumeration uses. The
attacker is also given the batch's command (under seal 1 the hash covers it too,
and it is usually inferable from the public consequences). ``SeatTaken``'s private
part (a hash of a 256-bit token) has no enumerable domain: only the truth check
applies to it.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
from support import sse
from support.http_games import HttpApi, create_game, seat_everyone
from support.live_server import LiveServer
from support.redis import TestRedis
from support.security_servers import ADMIN_TOKEN, own_server

from engine.abluxxen.cards import JOKER_JSON, NUMBERS
from engine.model import Event
from engine.rng import SeededRandom
from engine.schlitzohr.material import COLOURS
from events.audit.verify import verify_lines
from events.chain.sealing import seal_v1
from events.chain.verify import event_hash_v1
from events.model.canonical import canonical_json, sha256_hex
from events.model.envelope import Envelope
from events.model.redaction import SPECTATOR, Viewer, redact

CARDS: list[Any] = [*NUMBERS, JOKER_JSON]
GAMES = [("schlitzohr", 2), ("schlitzohr", 3), ("schlitzohr", 4), ("abluxxen", 2), ("abluxxen", 3)]
PRIVATE_TYPES = {
    "SeatTaken", "GameSetUp", "EarsInspected", "DeckShuffled", "HandDealt", "CardDrawn"
}
FINITE_TYPES = PRIVATE_TYPES - {"SeatTaken"}
WINDOW = {"colours": 4, "cards": 3, "order": 2}  # positions left for the attacker to enumerate
PREFERRED = ("peek", "inspect")  # steer random play towards hidden facts


@dataclass
class PlayedGame:
    """One game played over HTTP: what each viewer received while it ran, and after."""

    game_id: str
    game: str
    players: int
    # viewer label ("seat0", ..., "spectator") -> version -> the served event it received
    received: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    export: list[dict[str, Any]] = field(default_factory=list)  # complete, after the end
    export_text: str = ""
    tokens: list[str] = field(default_factory=list)
    sse_checked: int = 0  # events compared between the SSE stream and the event pages


def viewer_of(label: str) -> Viewer:
    return SPECTATOR if label == "spectator" else int(label.removeprefix("seat"))


# --- playing ---------------------------------------------------------------------------


def _poll(api: HttpApi, played: PlayedGame, tokens: list[str | None]) -> bool:
    """Fetch every viewer's new events; False once the game has ended (then nothing is
    recorded: events served after the end are public anyway)."""
    status = api.call("GET", f"/v1/games/{played.game_id}").body["status"]
    if status == "finished":
        return False
    for label, token in zip(played.received, tokens, strict=True):
        seen = played.received[label]
        after = max(seen, default=0)
        page = api.call(
            "GET", f"/v1/games/{played.game_id}/events?after={after}&limit=500", token=token
        ).body
        for event in page["events"]:
            seen[event["version"]] = event
    return True  # no bots: the game only moves (and ends) by this test's own commands


def play_game(api: HttpApi, game: str, players: int, seed: bytes) -> PlayedGame:
    game_id = create_game(api, game, players)
    tokens: list[str | None] = [*seat_everyone(api, game_id, players), None]
    played = PlayedGame(game_id, game, players, tokens=[t for t in tokens if t is not None])
    played.received = {f"seat{i}": {} for i in range(players)} | {"spectator": {}}
    pick = SeededRandom(seed, "guessing-attack")
    running = _poll(api, played, tokens)
    for step in range(5000):
        view = api.call("GET", f"/v1/games/{game_id}").body
        if view["status"] == "finished":
            break
        seat = int(min(view["to_act"], key=int))
        legal = api.call("GET", f"/v1/games/{game_id}/legal", token=tokens[seat]).body["commands"]
        wanted = [c for c in legal if c["kind"] in PREFERRED or c.get("from") == "pile"]
        choices = wanted if wanted and pick.randbelow(4, f"w{step}") else legal
        command = choices[pick.randbelow(len(choices), f"c{step}")]
        reply = api.call(
            "POST",
            f"/v1/games/{game_id}/commands",
            token=tokens[seat],
            body={"command": command},
            headers={"If-Match": f'"{view["version"]}"'},
        )
        assert reply.status == 200, reply.body
        if running:
            running = _poll(api, played, tokens)
        if running and step == 25:
            played.sse_checked = _compare_sse(api, played, tokens, reply.body["version"])
    else:
        raise AssertionError(f"game {game_id} did not end")
    export = api.call(
        "GET", f"/v1/games/{game_id}/export", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}
    )
    assert export.status == 200 and export.headers["Tabletop-Export"] == "complete"
    played.export_text = export.body
    played.export = [json.loads(line) for line in export.body.splitlines() if line]
    ended = next(e["version"] for e in played.export if e["type"] == "GameEnded")
    for seen in played.received.values():  # only what was served while the game ran
        for version in [v for v in seen if v >= ended]:
            del seen[version]
    return played


def _compare_sse(api: HttpApi, played: PlayedGame, tokens: list[str | None], head: int) -> int:
    """Each viewer's SSE stream, read up to ``head``, carries exactly the events its
    event pages did (so the attack on the pages covers the stream too)."""
    compared = 0
    for label, token in zip(played.received, tokens, strict=True):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        url = f"{api.base_url}/v1/games/{played.game_id}/events/stream"
        with api.session.get(url, headers=headers, stream=True, timeout=30) as response:
            assert response.status_code == 200
            for event in sse.events(response.iter_content(chunk_size=None)):
                assert event.data == played.received[label][event.id]
                compared += 1
                if event.id == head:
                    break
    return compared


@pytest.fixture(scope="module")
def server(redis_target: TestRedis) -> Iterator[LiveServer]:
    """A live server of this module's own, without a rate limit: the attack polls every
    viewer's event pages after every command."""
    with own_server(redis_target, rate_limit_per_minute=0) as live:
        yield live


@pytest.fixture(scope="module")
def played(server: LiveServer) -> list[PlayedGame]:
    with requests.Session() as session:
        api = HttpApi(session, server.url)
        return [play_game(api, g, n, b"guess%d" % i) for i, (g, n) in enumerate(GAMES)]


# --- the attack ---------------------------------------------------------------------------


def candidates(event: dict[str, Any], truth: dict[str, Any]) -> Iterator[dict[str, Any]] | None:
    """Every private part the attacker tries for ``event`` (None: no finite domain)."""
    kind = event["type"]
    if kind == "CardDrawn":
        return ({"card": card} for card in CARDS)
    if kind == "EarsInspected":
        ears = event["data"]["ears"]
        return (
            {"colours": {str(e): c for e, c in zip(ears, combo, strict=True)}}
            for combo in itertools.product(COLOURS, repeat=len(ears))
        )
    if kind in ("GameSetUp", "HandDealt", "DeckShuffled"):
        [(name, values)] = truth.items()
        width, domain = WINDOW[name], (list(COLOURS) if name == "colours" else CARDS)
        return (
            {name: [*combo, *values[width:]]}
            for combo in itertools.product(domain, repeat=min(width, len(values)))
        )
    return None


class Formulas:
    """Everything a viewer can compute from an event's public fields and a guess of its
    hidden parts, with every public formula: seal 1's hash (with and without the seal-2
    fields), seal 2's hash with the hidden parts filled in, and the commitment digest
    unkeyed or keyed with each public value (empty, game id, the seed commitment).

    Built once per event and viewer for a given ``command`` (the attacker is given it):
    what depends only on the command and the public fields is computed here, so a guess
    of the private part costs only what depends on it. :meth:`values` answers exactly
    what computing every formula afresh for that guess would."""

    def __init__(self, event: dict[str, Any], commitment: str, command: Any) -> None:
        self.stored = {k: v for k, v in event.items() if k != "redacted"}
        self.command = command
        gid = event["game_id"]
        self.prefix = f"tabletop/commit/v2\x00{gid}\x00{event['version']}\x00"
        keys = (b"", gid.encode(), bytes.fromhex(commitment), commitment.encode())
        self.macs = [hmac.new(key, digestmod=hashlib.sha256) for key in keys]  # copied per message
        self.of_command = self._digests("command", command)

    def _digests(self, part: str, value: Any) -> set[str]:
        text = canonical_json(value)
        message = f"{self.prefix}{part}\x00{text}".encode()
        out = {sha256_hex(text), hashlib.sha256(message).hexdigest()}
        for keyed in self.macs:
            mac = keyed.copy()
            mac.update(message)
            out.add(mac.hexdigest())
        return out

    def values(self, private: Any) -> set[str]:
        filled = {**self.stored, "private": private, "command": self.command}
        seal1 = {k: v for k, v in filled.items() if k not in SEAL2_ONLY}
        hashes = {event_hash_v1(filled), event_hash_v1(seal1)}
        return hashes | self._digests("private", private) | self.of_command


SEAL2_ONLY = ("seal", "private_digest", "command_digest")
"""The fields seal 2 added: a seal-1 hash is also tried without them."""


def targets(event: dict[str, Any]) -> set[str]:
    """What a guess is tested against: the hash and whatever digests the event carries."""
    return {event["hash"], *(event.get(f"{p}_digest") or "" for p in ("private", "command"))} - {""}


@dataclass
class Outcome:
    attacked: dict[str, int] = field(default_factory=dict)  # per type: (event, viewer) pairs
    recovered: dict[str, int] = field(default_factory=dict)
    truth_reproduces: dict[str, int] = field(default_factory=dict)


def attack(game: PlayedGame, received: dict[str, dict[int, dict[str, Any]]]) -> Outcome:
    """Run the attack for every hidden private part and every viewer it was hidden from."""
    full = {e["version"]: e for e in game.export}
    commitment = game.export[0]["data"]["commitment"]
    out = Outcome()
    for seen in received.values():
        for version, event in seen.items():
            truth = full[version]
            if truth["private"] is None or event["private"] is not None:
                continue  # nothing hidden from this viewer here
            kind = event["type"]
            out.attacked[kind] = out.attacked.get(kind, 0) + 1
            wanted = targets(event)
            # The command is given to the attacker (see the module docstring).
            formulas = Formulas(event, commitment, truth["command"])
            if formulas.values(truth["private"]) & wanted:
                out.truth_reproduces[kind] = out.truth_reproduces.get(kind, 0) + 1
            guesses = candidates(event, truth["private"])
            if guesses is None:
                continue
            hits = [g for g in guesses if formulas.values(g) & wanted]
            if hits == [truth["private"]]:
                out.recovered[kind] = out.recovered.get(kind, 0) + 1
    return out


def reseal_v1(export: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same history sealed with seal 1, as the old store would have written it."""
    out, prev = [], "0" * 64
    for raw in export:
        event = Event(raw["type"], raw["data"], raw["private"], tuple(raw["visible_to"]))
        [sealed] = seal_v1(
            raw["game_id"],
            [event],
            raw["version"],
            prev,
            time=raw["time"],
            actor=raw["actor"],
            command=raw["command"],
            schema_version=lambda t, v=raw["schema_version"]: v,
        )
        out.append(json.loads(sealed.text))
        prev = sealed.hash
    return out


def redacted_like(
    history: list[dict[str, Any]], received: dict[str, dict[int, dict[str, Any]]]
) -> dict[str, dict[int, dict[str, Any]]]:
    """``history`` redacted for each viewer exactly as the server redacts (the same
    versions each viewer received while the game ran)."""
    by_version = {e["version"]: e for e in history}
    return {
        label: {
            v: redact(Envelope.from_stored(by_version[v]), viewer_of(label), False).to_json()
            for v in seen
        }
        for label, seen in received.items()
    }


def total(outcomes: list[Outcome], name: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for outcome in outcomes:
        for kind, n in getattr(outcome, name).items():
            out[kind] = out.get(kind, 0) + n
    return out


@pytest.fixture(scope="module")
def seal2_outcomes(played: list[PlayedGame]) -> list[Outcome]:
    """The attack on what the viewers received from the server (seal 2)."""
    return [attack(game, game.received) for game in played]


# --- the tests ------------------------------------------------------------------------------


def test_every_private_event_type_was_attacked_and_served_as_the_store_redacts(
    played: list[PlayedGame], seal2_outcomes: list[Outcome]
) -> None:
    assert set(total(seal2_outcomes, "attacked")) == PRIVATE_TYPES
    assert sum(len(seen) for g in played for seen in g.received.values()) > 500
    assert all(game.sse_checked > 25 * (game.players + 1) for game in played)
    for game in played:  # what each viewer got over HTTP is the store's redaction of it
        assert redacted_like(game.export, game.received) == game.received
        assert all(e.get("seal") == 2 for e in game.export)


def test_under_seal_2_the_attack_recovers_nothing(seal2_outcomes: list[Outcome]) -> None:
    outcomes = seal2_outcomes
    attacked = total(outcomes, "attacked")
    assert set(attacked) == PRIVATE_TYPES
    print(f"seal 2: attacked {attacked}, recovered {total(outcomes, 'recovered')}")  # -s shows it
    assert total(outcomes, "recovered") == {}
    assert total(outcomes, "truth_reproduces") == {}  # not even the truth reproduces a value


def test_against_seal_1_the_same_attack_recovers_every_private_part(
    played: list[PlayedGame],
) -> None:
    """The test can fail: the same histories and viewers, sealed the old way."""
    outcomes = []
    for game in played:
        old = reseal_v1(game.export)
        assert "seal" not in old[0] and verify_lines([canonical_json(e) for e in old]).ok
        outcomes.append(attack(game, redacted_like(old, game.received)))
    attacked = total(outcomes, "attacked")
    assert set(attacked) == PRIVATE_TYPES
    print(f"seal 1: attacked {attacked}, recovered {total(outcomes, 'recovered')}")  # -s shows it
    assert total(outcomes, "recovered") == {k: n for k, n in attacked.items() if k in FINITE_TYPES}
    assert total(outcomes, "truth_reproduces") == attacked


def test_seat_token_hashes_reach_no_viewer_while_the_game_runs(played: list[PlayedGame]) -> None:
    """Issue 11, finding 7: the token hash is a private part visible to nobody (not
    even its seat) and committed by a salted digest; no viewer received it."""
    for game in played:
        hashes = [hashlib.sha256(token.encode()).hexdigest() for token in game.tokens]
        stored = [e for e in game.export if e["type"] == "SeatTaken"]
        assert sorted(e["private"]["token_hash"] for e in stored) == sorted(hashes)
        assert all(e["visible_to"] == [] and e["private_digest"] for e in stored)
        for seen in game.received.values():
            text = json.dumps(list(seen.values()))
            assert not any(h in text for h in hashes)
            assert all(e["private"] is None for e in seen.values() if e["type"] == "SeatTaken")


# --- verifying a finished seal-2 game ------------------------------------------------------


def cli_verify(path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [str(Path(sys.executable).parent / "tabletop"), "verify", str(path), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    report = json.loads(done.stdout)
    assert (done.returncode == 0) == report["ok"], done.stderr
    return dict(report)


def test_a_finished_seal_2_game_verifies_and_tampering_is_found_at_its_version(
    played: list[PlayedGame], server: LiveServer, tmp_path: Path
) -> None:
    for game in played:
        report = requests.get(f"{server.url}/v1/games/{game.game_id}/verification", timeout=60)
        assert report.status_code == 200 and report.json()["ok"], report.text
    game = next(g for g in played if g.game == "abluxxen")
    path = tmp_path / "game.jsonl"
    path.write_text(game.export_text, encoding="utf-8")
    assert cli_verify(path)["ok"]

    drawn = next(e for e in game.export if e["type"] == "CardDrawn" and e["private"])
    other = next(c for c in CARDS if c != drawn["private"]["card"])
    inspected = [g for g in played if g.game == "schlitzohr"]
    cases = [
        (game, drawn["version"], {"private": {"card": other}}),  # a private part edited
        (game, drawn["version"], {"private_digest": "0" * 64}),  # a digest edited
        (game, drawn["version"], {"command_digest": "1" * 64}),
    ]
    seen = next(
        (g, e) for g in inspected for e in g.export if e["type"] == "EarsInspected"
    )
    colours = dict(seen[1]["private"]["colours"])
    first = next(iter(colours))
    colours[first] = next(c for c in COLOURS if c != colours[first])
    cases.append((seen[0], seen[1]["version"], {"private": {"colours": colours}}))
    for victim, version, change in cases:
        lines = [
            canonical_json({**e, **change}) if e["version"] == version else canonical_json(e)
            for e in victim.export
        ]
        report = verify_lines(lines)
        assert report.discrepancy is not None and report.discrepancy.version == version, change
        assert report.discrepancy.kind == "chain", report.discrepancy
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        found = cli_verify(path)
        assert not found["ok"] and found["discrepancy"]["version"] == version
