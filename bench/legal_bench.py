"""The enumerated ``/legal`` answer: written as text from the compact list, against
building the expanded list and encoding it (the way it was written before, and the
in-run baseline).

A Schlitzohr inspection picks k of the n ears still hidden, so the enumerated list
holds C(n, k) commands: 8,008 for 6 of 16. A gevent worker answers nobody else while it
writes one, so its time is every other client's latency on that worker.

    .venv/bin/python -m bench.legal_bench [--rounds 15]

Prints, per pick size, the median (min-max) milliseconds of both ways over the rounds
(interleaved, same process), and the answer's size; the texts are checked equal.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from engine.choices import choice, expand
from service.app.documents import encode, encode_enumerated

PICKS = ((16, 6), (16, 5), (14, 4), (12, 3), (8, 2))
"""(ears hidden, ears to inspect): the largest lists a game reaches, down to typical ones."""


def legal_document(hidden: int, count: int) -> dict[str, Any]:
    """A compact ``/legal`` document like the server's, with one inspection choice."""
    return {
        "game_id": "bench",
        "version": 41,
        "status": "running",
        "you": 0,
        "to_act": {"0": ["inspect"]},
        "commands": [choice("inspect", "ears", range(hidden), count)],
    }


def by_dicts(document: dict[str, Any]) -> str:
    """The baseline: the expanded list built as dicts, then encoded."""
    return encode({**document, "commands": expand(document["commands"])})


def timed_ms(write: Callable[[dict[str, Any]], str], document: dict[str, Any]) -> float:
    started = time.perf_counter()
    write(document)
    return 1e3 * (time.perf_counter() - started)


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    print(f"{'pick':>8}{'commands':>10}{'KB':>8}{'dicts ms':>22}{'text ms':>22}{'dicts/text':>12}")
    for hidden, count in PICKS:
        document = legal_document(hidden, count)
        text = encode_enumerated(document)
        assert text == by_dicts(document), "the two ways must write the same text"
        dicts, texts = [], []
        for _ in range(args.rounds):
            dicts.append(timed_ms(by_dicts, document))
            texts.append(timed_ms(encode_enumerated, document))
        ratio = statistics.median(d / t for d, t in zip(dicts, texts, strict=True))
        commands = len(expand(document["commands"]))
        print(f"{f'{count} of {hidden}':>8}{commands:>10}{len(text) / 1e3:>8.0f}"
              f"{spread(dicts):>22}{spread(texts):>22}{ratio:>12.1f}")


if __name__ == "__main__":
    main()
