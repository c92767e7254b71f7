"""The stream's served form of a stored event equals the envelope path's, for every viewer.

``events.model.redaction.served_form`` serves a stored dict without building envelopes
(the live stream's hot path); ``redact(Envelope.from_stored(...)).to_json()`` is what
every read serves. Both must give the same dict -- keys, values and key order -- or a
stream would show a viewer something a read hides (or the other way round).
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from engine.model import Event
from engine.playout import play
from engine.registry import get_game
from events.chain.sealing import CommitKey, seal, seal_v1
from events.model.canonical import ZERO_HASH
from events.model.envelope import SYSTEM, Envelope, bot_actor, seat_actor
from events.model.redaction import ADMIN, AUDITOR, SPECTATOR, Viewer, redact, served_form
from events.model.upcasting import default_upcasters
from events.redis_adapter.decode import decode, stored_forms
from service.app.documents import encode
from service.http.sse import _handed_over, _messages

SEED = "5e" * 32
TIME = "2026-12-03T10:00:00.000000Z"
VIEWERS: list[Viewer] = [0, 1, 2, SPECTATOR, AUDITOR, ADMIN]


def stored_game(name: str, players: int, seed: bytes, sealer: str = "seal2") -> list[str]:
    """A whole played game's stored texts, each command's events sealed as one batch."""
    steps: list[tuple[int, list[Event]]] = []
    play(get_game(name), players, seed, on_step=lambda _s, seat, _c, new: steps.append((seat, new)))
    texts: list[str] = []
    prev, version = ZERO_HASH, 1
    for index, (seat, events) in enumerate(steps):
        actor = [seat_actor(seat), bot_actor(seat), SYSTEM][index % 3]
        command = None if actor is SYSTEM else {"kind": "move", "n": index}
        common: dict[str, Any] = {
            "time": TIME,
            "actor": actor,
            "command": command,
            "schema_version": lambda t: 1,
        }
        if sealer == "seal2":
            sealed = seal("g1", events, version, prev, key=CommitKey(SEED, "g1"), **common)
        else:
            sealed = seal_v1("g1", events, version, prev, **common)
        texts += [s.text for s in sealed]
        prev, version = sealed[-1].hash, version + len(sealed)
    return texts


@pytest.mark.parametrize(
    "name, players, sealer",
    [
        ("schlitzohr", 2, "seal2"),
        ("schlitzohr", 4, "seal2"),
        ("abluxxen", 3, "seal2"),
        ("abluxxen", 2, "seal1"),
    ],
)
def test_served_form_equals_the_redacted_envelope(name: str, players: int, sealer: str) -> None:
    texts = stored_game(name, players, b"redaction-" + name.encode(), sealer)
    hidden = redacted_somewhere = 0
    for text in texts:
        for viewer in VIEWERS:
            for finished in (False, True):
                via_envelope = redact(
                    Envelope.from_stored(orjson.loads(text)), viewer, finished
                ).to_json()
                served = served_form(orjson.loads(text), viewer, finished)
                assert list(served.items()) == list(via_envelope.items())
                assert encode(served) == encode(via_envelope)
                redacted_somewhere += served["redacted"]
        hidden += orjson.loads(text)["private"] is not None
    assert hidden and redacted_somewhere  # the games did hide something from someone


def test_a_stream_hands_over_what_a_read_would_send() -> None:
    """The hub's path (stored dicts) and the read path (envelopes) write the same SSE text,
    including the batch that ends the game (shown in full, as after the end)."""
    texts = stored_game("abluxxen", 3, b"stream-handover")
    entries = [(b"%d-0" % v, {b"e": t.encode()}) for v, t in enumerate(texts, start=1)]
    upcasters = default_upcasters()

    class Reader:
        def stored_of(self, batch: list[Any]) -> list[dict[str, Any]]:
            return stored_forms(batch, b"e", upcasters)

    for viewer in VIEWERS:
        for size in (1, 3, 7):
            for start in range(0, len(entries), size):
                batch = entries[start : start + size]
                handed = _handed_over(Reader(), batch, viewer, False)  # type: ignore[arg-type]
                envelopes = decode(batch, b"e", upcasters)
                ends = any(e.type == "GameEnded" for e in envelopes)
                read = _messages([redact(e, viewer, ends) for e in envelopes])
                assert handed == read


def test_served_form_refuses_a_viewer_of_no_kind() -> None:
    text = stored_game("schlitzohr", 2, b"bad-viewer")[-3]
    with pytest.raises(TypeError):
        served_form(orjson.loads(text), True, False)  # type: ignore[arg-type]
    assert served_form(orjson.loads(text), True, True)["redacted"] is False  # type: ignore[arg-type]
