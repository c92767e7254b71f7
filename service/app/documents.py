"""The JSON documents the application answers with: a game's view and a command's outcome.

Built from the table and the engine only, so they can be computed *before* an
append -- a command's outcome is stored with its idempotency key and a retry is
answered with exactly the same document. Everything passes through the viewer's
redaction: ``game.view(state, seat)`` for the state, ``Event.redacted_for`` for
events. Nothing here reads Redis.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

import orjson

from engine.choices import CHOOSE, expand
from engine.game import Game
from engine.model import JSON, Event
from engine.registry import get_game
from engine.table import FINISHED, Table
from events.state.clockview import clock_json, deadlines_json


def encode(document: Any) -> str:
    """``document`` as compact JSON text (UTF-8 as is, not ``\\u`` escaped): the one
    encoding of every answer, so an outcome stored for a retry is answered byte for byte.

    orjson, because a view is a few kilobytes and this runs on every command; for the
    documents we build (str keys, ints, no floats) its text equals
    ``json.dumps(document, separators=(",", ":"), ensure_ascii=False)``
    (``tests/unit/test_documents_encode.py``). TypeError (orjson's JSONEncodeError) for
    what is not JSON data."""
    return orjson.dumps(document, option=orjson.OPT_NON_STR_KEYS).decode()


def encode_outcome(document: Any) -> str:
    """An outcome document as JSON text: :func:`encode` with sorted keys. A retry's answer
    is rebuilt from stored events, which come back in canonical (sorted) key order, while
    the first answer holds the engine's events as built: sorting makes both the same
    bytes (``service.app.retries``). orjson sorts in C, at no measurable cost."""
    return orjson.dumps(document, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SORT_KEYS).decode()


_HOLE = "\x00"
"""A value no document holds (no id, name, kind or status has a NUL): marks where text
goes in, encoded as the one place ``"\\u0000"`` appears."""
_HOLE_TEXT = '"\\u0000"'


def encode_enumerated(document: Mapping[str, Any]) -> str:
    """:func:`encode` of ``document`` with its ``"commands"`` -- a compact legal list
    (``engine.choices``) -- expanded: the very text of
    ``encode({**document, "commands": expand(document["commands"])})``
    (``tests/unit/test_documents_encode.py``), written without building the expanded list.

    Why: a k-of-n pick stands for thousands of commands (6 of 16 ears: 8,008 of them,
    338 KB), and a gevent worker answers nobody else while it writes them. As dicts they
    took 7.8 ms to build and encode (21 ms when a garbage collection fell in), as text
    1.8 ms (``python -m bench.legal_bench``: 4x for every list of 1,000 commands or more).
    A list without a choice (most positions) is one :func:`encode`, as before."""
    compact = document["commands"]
    if not any(CHOOSE in item for item in compact):
        return encode(document)
    around = _around(document, "commands")
    if around is None:  # cannot happen for our documents; stay exact anyway
        return encode({**document, "commands": expand(compact)})
    before, after = around
    return f"{before}[{','.join(_commands_text(compact))}]{after}"


def _around(mapping: Mapping[str, Any], key: str) -> tuple[str, str] | None:
    """The text of ``encode({**mapping, key: ...})`` before and after the value, or None
    if the marker cannot be told apart (a value of the mapping holds a lone NUL)."""
    shell = encode({**mapping, key: _HOLE})
    if shell.count(_HOLE_TEXT) != 1:
        return None
    before, after = shell.split(_HOLE_TEXT)
    return before, after


def _commands_text(compact: Iterable[Mapping[str, Any]]) -> Iterable[str]:
    """The JSON texts of the commands ``compact`` stands for, in ``expand``'s order; a
    choice gives one text holding all its commands, comma-separated (none if it stands for none)."""
    for item in compact:
        spec = item.get(CHOOSE)
        if spec is None:
            yield encode(item)
            continue
        # expand_one builds {**fixed fields, field: picked}: the same text around each pick.
        around = _around({k: v for k, v in item.items() if k != CHOOSE}, spec["field"])
        if around is None:
            yield from map(encode, expand([item]))
            continue
        before, after = around
        picks = list(map(",".join, combinations([encode(x) for x in spec["from"]], spec["count"])))
        if picks:
            yield f"{before}[" + f"]{after},{before}[".join(picks) + f"]{after}"


def seats_json(table: Table) -> list[JSON]:
    """Who sits where (names, bot levels and who is a guest are public; token hashes
    never leave). ``guest``: a person without an account (see ``engine.table.Seat``)."""
    return [{"seat": i, "name": s.name, "bot": s.bot, "guest": s.guest} for i, s in enumerate(table.seats)]


def view_document(game_id: str, table: Table, seat: int | None) -> JSON:
    """The view of ``seat`` (None = spectator) at the table's version. Before play begins
    ``state`` is the spectator's even for a seat (``you`` still names it): its holder
    may still leave it to someone else (``Table.seats_settled``)."""
    game: Game[Any] = get_game(table.game)
    state = table.state
    result = game.result(state) if state is not None else None
    # Nobody acts before the start, nor in a game that expired in the lobby.
    to_act = game.to_act(state) if table.status not in ("open", "expired") and state is not None else {}
    return {
        "game_id": game_id,
        "game": table.game,
        "version": table.version,
        "status": table.status,
        "you": seat,
        "seats": seats_json(table),
        "options": dict(table.options),
        "created": table.created,
        "commitment": table.commitment,
        "seed": table.seed if table.status == FINISHED else None,
        "to_act": {str(s): list(kinds) for s, kinds in sorted(to_act.items())},
        "result": result.to_json() if result is not None else None,
        # A seat sees its private facts once seats are settled (Table.seats_settled).
        "state": game.view(state, seat if table.seats_settled else None) if state is not None else None,
        "clock": clock_json(table),
        "deadlines": deadlines_json(table),
        "invite_only": table.invite_only,
        "rematch_of": table.rematch_of,
    }


def events_json(events: Sequence[Event], first_version: int, seat: int | None, finished: bool) -> list[JSON]:
    """Engine events as ``seat`` may see them, numbered from ``first_version``."""
    out = []
    for offset, event in enumerate(events):
        shown = event if finished else event.redacted_for(seat)
        item = shown.to_json()
        item["version"] = first_version + offset
        item.setdefault("private", None)
        item.setdefault("visible_to", list(event.visible_to))
        out.append(item)
    return out


def outcome_document(game_id: str, table: Table, events: Sequence[Event], seat: int) -> JSON:
    """The answer to a command by ``seat`` that produced ``events`` and led to ``table``."""
    first = table.version - len(events) + 1
    finished = table.status == FINISHED
    return {
        "game_id": game_id,
        "version": table.version,
        "events": events_json(events, first, seat, finished),
        "view": view_document(game_id, table, seat),
    }
