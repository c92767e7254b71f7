"""What a live stream spends serving one event it was handed: envelopes against stored dicts.

    .venv/bin/python -m bench.stream_serve_bench [--games 4] [--rounds 5]

The hub hands a stream the stored texts an append published; the stream decodes them,
redacts them for its viewer and writes each as an SSE message. Two paths make the same
text (``tests/unit/test_redaction.py``):

- envelopes: ``decode`` (``Envelope.from_stored``), ``redact`` (``dataclasses.replace``
  where something is hidden), ``to_json``, then the message -- what a read serves;
- served form: ``stored_forms``, ``events.model.redaction.served_form``, then the
  message -- what ``service.http.sse`` serves a handed-over batch with.

Real 2-player Schlitzohr games, sealed as the store seals them, one event per batch (a
live message is one command's events), for a seat and for a spectator. Reports µs per
event of each path, median (min-max) over the rounds, run back to back in each round.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from engine.playout import play
from engine.registry import get_game
from events.chain.sealing import CommitKey, seal
from events.model.canonical import ZERO_HASH
from events.model.envelope import seat_actor
from events.model.redaction import SPECTATOR, Viewer, redact
from events.model.upcasting import default_upcasters
from events.redis_adapter.decode import Entry, decode, stored_forms
from service.http.sse import _handed_over, _messages

SEED = "be" * 32


def stored_entries(games: int) -> list[Entry]:
    """Stream entries of ``games`` played games, as the hub hands them over."""
    entries: list[Entry] = []
    for index in range(games):
        game_id, prev, version = f"bench{index}", ZERO_HASH, 1
        steps: list[tuple[int, Any]] = []
        play(
            get_game("schlitzohr"),
            2,
            b"serve%d" % index,
            on_step=lambda _s, seat, _c, new, steps=steps: steps.append((seat, new)),
        )
        for seat, events in steps:
            sealed = seal(
                game_id,
                events,
                version,
                prev,
                time="2026-12-03T10:00:00.000000Z",
                actor=seat_actor(seat),
                command={"kind": "move"},
                schema_version=lambda t: 1,
                key=CommitKey(SEED, game_id),
            )
            entries += [(b"%d-0" % s.version, {b"e": s.text.encode()}) for s in sealed]
            prev, version = sealed[-1].hash, version + len(sealed)
    return entries


def per_event_us(entries: list[Entry], serve: Callable[[list[Entry]], object]) -> float:
    started = time.perf_counter()
    for entry in entries:
        serve([entry])
    return 1e6 * (time.perf_counter() - started) / len(entries)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    entries, upcasters = stored_entries(args.games), default_upcasters()

    class Reader:  # the one reader method the stream's hand-over path calls
        def stored_of(self, batch: list[Entry]) -> list[dict[str, Any]]:
            return stored_forms(batch, b"e", upcasters)

    reader = Reader()
    print(
        f"{len(entries)} events of {args.games} games, one per batch; median (min-max) of {args.rounds} rounds"
    )
    viewer: Viewer
    for label, viewer in (("seat 0", 0), ("spectator", SPECTATOR)):

        def envelopes(batch: list[Entry], viewer: Viewer = viewer) -> object:
            return _messages([redact(e, viewer, False) for e in decode(batch, b"e", upcasters)])

        def served(batch: list[Entry], viewer: Viewer = viewer) -> object:
            return _handed_over(reader, batch, viewer, False)  # type: ignore[arg-type]

        rounds = [
            (per_event_us(entries, envelopes), per_event_us(entries, served))
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
