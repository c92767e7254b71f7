"""The web client listens for every event type the server may send on a stream.

``EventSource`` delivers a named SSE event (``event: SeatForfeited``) only to a listener
for that name, so a type missing from ``web/js/stream.js``'s ``EVENT_TYPES`` never
reached the page: a Schlitzohr seat's forfeit and a turn clock's timeout were missing
from the log of every browser until this test (the page only caught up at the next
event it knew)."""

from __future__ import annotations

import re
from pathlib import Path

from engine.registry import game_names
from events.schemas import default_registry

STREAM_JS = Path(__file__).resolve().parents[2] / "web" / "js" / "stream.js"


def listened_types() -> list[str]:
    source = STREAM_JS.read_text()
    block = re.search(r"export const EVENT_TYPES = \[(.*?)\];", source, re.S)
    assert block is not None, "EVENT_TYPES not found in stream.js"
    body = re.sub(r"//[^\n]*", "", block.group(1))
    return re.findall(r"'([A-Za-z]+)'", body)


def test_the_web_client_listens_for_every_event_type_of_every_game_once() -> None:
    registry = default_registry()
    served = set(registry.types(""))
    for game in game_names():
        served |= set(registry.types(game))
    listened = listened_types()
    assert len(listened) == len(set(listened)), "a type is listed twice"
    assert sorted(listened) == sorted(served)
