"""The stream's served form of a stored event equals the envelope path's, for every viewer.

``events.model.redaction.served_form`` serves a stored dict without building envelopes
(the live stream's hot path); ``redact(Envelope.from_stored(...)).to_json()`` is what
every read serves. Both must give the same dict -- keys, values and key order -- or a
stream would show a viewer something a read hides (or the other way round).
"""

from __future__ import annotations

import orjson
import pytest

from bench.stream_serve_bench import HandOverReader, entries_of, sealed_history
from events.model.envelope import Envelope
from events.model.redaction import ADMIN, AUDITOR, SPECTATOR, Viewer, redact, served_form
from events.redis_adapter.decode import decode
from service.app.documents import encode
from service.http.sse import _handed_over, _messages

VIEWERS: list[Viewer] = [0, 1, 2, SPECTATOR, AUDITOR, ADMIN]


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
    texts = sealed_history(name, players, b"redaction-" + name.encode(), sealer)
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
    entries = entries_of(sealed_history("abluxxen", 3, b"stream-handover"))
    reader = HandOverReader()

    for viewer in VIEWERS:
        for size in (1, 3, 7):
            for start in range(0, len(entries), size):
                batch = entries[start : start + size]
                handed = _handed_over(reader, batch, viewer, False)  # type: ignore[arg-type]
                envelopes = decode(batch, b"e", reader.upcasters)
                ends = any(e.type == "GameEnded" for e in envelopes)
                read = _messages([redact(e, viewer, ends) for e in envelopes])
                assert handed == read


def test_served_form_refuses_a_viewer_of_no_kind() -> None:
    text = sealed_history("schlitzohr", 2, b"bad-viewer")[-3]
    with pytest.raises(TypeError):
        served_form(orjson.loads(text), True, False)  # type: ignore[arg-type]
    assert served_form(orjson.loads(text), True, True)["redacted"] is False  # type: ignore[arg-type]


def test_an_event_without_visible_to_or_actor_is_redacted_not_refused() -> None:
    """A stored event missing ``visible_to`` and ``actor`` (none is written so; a hand-edited
    or damaged record) fails closed: its hidden parts are withheld from every seat while
    the game runs, instead of the read failing."""
    text = next(
        t for t in sealed_history("abluxxen", 3, b"redaction-damaged")
        if orjson.loads(t)["private"] is not None
    )
    for viewer in (0, 1, 2, SPECTATOR):
        stored = orjson.loads(text)
        del stored["visible_to"], stored["actor"]
        served = served_form(stored, viewer, False)
        assert served["private"] is None and served["command"] is None
        assert served["redacted"] is True
