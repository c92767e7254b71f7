"""The ratings' Redis keys, per game type, all under the hash tag ``{<game>}``.

``<p>ratings:{<game>}:gen`` (string)
    The write counter (``rating_scripts``); never deleted.
``<p>ratings:{<game>}:pending`` / ``:done`` (sorted sets)
    Games queued for rating / rated, score = ``GameEnded`` time in microseconds; equal
    scores sort by game id, so (score, member) is the rating order.
``<p>ratings:{<game>}:outcome`` (hash)
    Game id -> its rated outcome (``{ended, players: [[identity, rank]...]}``).
``<p>ratings:{<game>}:record`` (hash)
    Game id -> what rating it did: per player identity, rank, rating before and after.
``<p>ratings:{<game>}:rating`` (hash) / ``:board`` (sorted set)
    Identity -> its rating JSON ``{games, mu, sigma}`` / its ordinal (the leaderboard).
``<p>ratings:{<game>}:played:<identity, percent-encoded>`` (sorted set)
    The games the identity was rated in (same scores): its history, newest last.
"""

from __future__ import annotations

from dataclasses import dataclass

from events.projections.keys import encode_name, glob_escape
from events.redis_adapter.keys import check_prefix

PARTS = ("pending", "done", "outcome", "record", "rating", "board")
"""The fixed keys a reset deletes (``gen`` stays; ``played`` keys are found by SCAN)."""


@dataclass(frozen=True, slots=True)
class RatingKeys:
    """The keys of one game type's ratings under ``prefix``."""

    prefix: str
    game: str

    def __post_init__(self) -> None:
        check_prefix(self.prefix)
        if not self.game or any(c in self.game for c in "{}*?[]\\"):
            raise ValueError(f"not a game type: {self.game!r}")

    def part(self, name: str) -> str:
        return f"{self.prefix}ratings:{{{self.game}}}:{name}"

    @property
    def gen(self) -> str:
        return self.part("gen")

    @property
    def pending(self) -> str:
        return self.part("pending")

    @property
    def done(self) -> str:
        return self.part("done")

    @property
    def outcome(self) -> str:
        return self.part("outcome")

    @property
    def record(self) -> str:
        return self.part("record")

    @property
    def rating(self) -> str:
        return self.part("rating")

    @property
    def board(self) -> str:
        return self.part("board")

    def played(self, ident: str) -> str:
        return self.part("played:" + encode_name(ident))

    @property
    def played_pattern(self) -> str:
        return glob_escape(self.part("played:")) + "*"

    @property
    def pattern(self) -> str:
        """Every ratings key of this game type (for dumps and tests)."""
        return glob_escape(self.part("")) + "*"
