"""What a live stream spends serving one event it was handed: envelopes against stored dicts.

    .venv/bin/python -m bench.stream_serve_bench [--games 4] [--rounds 5]

The hub hands a stream the stored texts an append published; the stream decodes them,
redacts them for its viewer and writes each as an SSE message. Two paths make the same
text (``tests/unit/test_redaction.py``):

- envelopes: ``decode`` (``Envelope.from_stored``), ``redact`` (``dataclasses.replace``
  where something is hidden), ``to_json``, then the message -- what a read serves;
- served form: ``stored_forms``, ``events.model.redaction.served_form``, then the
  message -- what ``service.http.sse`` serves a handed-over batch with.

Real 2-player Schlitzohr games (:func:`sealed_history`), sealed as the store seals them,
one event per batch (a live message is one command's events), for a seat and for a
spectator. Reports µs per
event of each path, median (min-max) over the rounds, run back to back in each round.

``--pace-ms 1`` serves each event after that long asleep, as a stream does between
events, and counts only the CPU of the serving itself (``time.process_time`` around each
event): the same code costs several times its back-to-back figure when it starts
cold (``docs/bench-rounds.md``, *Eighteenth round*).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from engine.model import Event
from engine.playout import play
from engine.registry import get_game
from events.chain.sealing import CommitKey, seal, seal_v1
from events.model.canonical import ZERO_HASH
from events.model.envelope import SYSTEM, bot_actor, seat_actor
from events.model.redaction import SPECTATOR, Viewer, redact
from events.model.upcasting import default_upcasters
from events.redis_adapter.decode import Entry, decode, stored_forms
from service.http.sse import _handed_over, _messages

TIME = "2026-12-03T10:00:00.000000Z"
KEY = CommitKey("be" * 32, "g1")


def sealed_history(name: str, players: int, seed: bytes, sealer: str = "seal2") -> list[str]:
    """A whole played game's stored texts, each command's events sealed as one batch, as
    the store seals them (``sealer`` "seal1": the old form); the actors take turns being
    the seat, its bot and the system (``tests/unit/test_redaction.py`` needs all three)."""
    steps: list[tuple[int, list[Event]]] = []
    play(get_game(name), players, seed, on_step=lambda _s, seat, _c, new: steps.append((seat, new)))
    texts: list[str] = []
    prev, version = ZERO_HASH, 1
    for index, (seat, events) in enumerate(steps):
        actor = [seat_actor(seat), bot_actor(seat), SYSTEM][index % 3]
        command = None if actor is SYSTEM else {"kind": "move", "n": index}
        common: dict[str, Any] = {"time": TIME, "actor": actor, "command": command}
        if sealer == "seal2":
            sealed = seal("g1", events, version, prev, schema_version=_one, key=KEY, **common)
        else:
            sealed = seal_v1("g1", events, version, prev, schema_version=_one, **common)
        texts += [s.text for s in sealed]
        prev, version = sealed[-1].hash, version + len(sealed)
    return texts


def _one(_type: str) -> int:
    return 1


def entries_of(texts: list[str]) -> list[Entry]:
    """Stored texts as the stream entries the hub hands over (versions from 1)."""
    return [(b"%d-0" % v, {b"e": t.encode()}) for v, t in enumerate(texts, start=1)]


class HandOverReader:
    """The one reader method the stream's hand-over path calls (``RedisEventReader.stored_of``)."""

    def __init__(self) -> None:
        self.upcasters = default_upcasters()

    def stored_of(self, batch: list[Entry]) -> list[dict[str, Any]]:
        return stored_forms(batch, b"e", self.upcasters)


def per_event_us(
    entries: list[Entry], serve: Callable[[list[Entry]], object], pace_s: float = 0.0
) -> float:
    """µs per event of ``serve``: wall time back to back, or with ``pace_s`` asleep
    before each event the process CPU time of the serving alone."""
    if pace_s <= 0:
        started = time.perf_counter()
        for entry in entries:
            serve([entry])
        return 1e6 * (time.perf_counter() - started) / len(entries)
    spent = 0.0
    for entry in entries:
        time.sleep(pace_s)
        before = time.process_time()
        serve([entry])
        spent += time.process_time() - before
    return 1e6 * spent / len(entries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pace-ms", type=float, default=0.0,
                        help="sleep this long before each event (0: back to back)")
    args = parser.parse_args(argv)
    pace_s = args.pace_ms / 1000
    texts = [t for i in range(args.games) for t in sealed_history("schlitzohr", 2, b"serve%d" % i)]
    entries, reader = entries_of(texts), HandOverReader()
    upcasters = reader.upcasters
    print(
        f"{len(entries)} events of {args.games} games, one per batch"
        + (f", each after {args.pace_ms:g} ms asleep (serving CPU only)" if pace_s > 0 else "")
        + f"; median (min-max) of {args.rounds} rounds"
    )
    viewer: Viewer
    for label, viewer in (("seat 0", 0), ("spectator", SPECTATOR)):

        def envelopes(batch: list[Entry], viewer: Viewer = viewer) -> object:
            return _messages([redact(e, viewer, False) for e in decode(batch, b"e", upcasters)])

        def served(batch: list[Entry], viewer: Viewer = viewer) -> object:
            return _handed_over(reader, batch, viewer, False)  # type: ignore[arg-type]

        rounds = [
            (per_event_us(entries, envelopes, pace_s), per_event_us(entries, served, pace_s))
            for _ in range(args.rounds)
        ]
        before, after = [r[0] for r in rounds], [r[1] for r in rounds]
        ratios = [a / b for b, a in rounds]
        print(
            f"{label:9s}  envelopes {statistics.median(before):6.2f} ({min(before):.2f}-{max(before):.2f}) us/event, "
            f"served form {statistics.median(after):6.2f} ({min(after):.2f}-{max(after):.2f}) us/event; "
            f"served/envelopes {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
