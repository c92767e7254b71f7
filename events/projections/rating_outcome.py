"""Which finished games are rated, who is rated in them, and in which order. Pure: no Redis.

A finished game's *rated outcome* is read from its table (its history folded) and the
time of its ``GameEnded`` event:

- **Identities.** A seat taken by a registered player (``SeatTaken`` public data
  ``"account": <canonical name>``, ``"guest": false``) is rated as ``player:<name>``;
  a bot seat (``"bot": <level>``) as ``bot:<level>``: every bot of one level is one
  identity, so a player's level can be compared with the bots'. Guests (any other
  seat) are not rated and do not count as opponents: the game is rated among its rated
  identities only, in the order they finished.
- **One seat per identity.** An identity at several seats (two ``greedy`` bots, say) is
  rated once, by its lowest seat -- chosen by seat number, never by how it did, so the
  choice biases nobody. Its other seats drop out like guests.
- **Ranks.** From the engine's result (``GameEnded``: ``scores`` and ``winners``, the
  same in both engines): the winners share rank 1; every other seat is ranked by its
  score, higher first; equal keys share a rank (competition ranking ``1, 2, 2, 4``:
  ranks are those among all seats, guests included). Abluxxen's tie-break by hand
  cards decides who is a winner and nothing else. A seat that left the game -- it ran
  out of time under a turn clock's ``forfeit`` policy (``TurnTimedOut``), or resigned
  (its command ``{"kind": "resign"}``, ``engine.resign``) -- ranks last, whatever its
  score, however the game ended after: leaving is a loss, not a place earned on the
  board.
- **Rated at all** only when at least two distinct identities remain (a game between
  one registered player and guests, or between bots of one level only, carries no
  information about anybody's skill). Expired games never ended: never rated.
- **Order.** Ratings depend on the order games are rated in; it is the order of the
  games' ``GameEnded`` events by (event time in microseconds, game id) -- a total order
  computed from the events, so a rebuild finds the very order the live projector used
  (``events.projections.ratings`` keeps it so even when games arrive late).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.model import JSON, Result
from engine.resign import is_resignation
from engine.table import FINISHED, GAME_ENDED, Seat, Table
from events.model.envelope import Envelope
from events.projections.model import created_us

PLAYER, BOT = "player:", "bot:"
"""Prefixes of the two kinds of rated identity."""


@dataclass(frozen=True, slots=True)
class RatedOutcome:
    """A finished game as the ratings see it: ``players`` is ``(identity, rank)`` per
    rated identity in seat order (its lowest seat), ``ended_us`` the sort key."""

    game_id: str
    game: str
    ended: str
    ended_us: int
    players: tuple[tuple[str, int], ...]

    def to_json(self) -> JSON:
        return {"ended": self.ended, "players": [list(p) for p in self.players]}


def identity(name: str, bot: bool) -> str:
    """The rated identity of an account name or a bot level."""
    return (BOT if bot else PLAYER) + name


def split_identity(ident: str) -> tuple[str, bool]:
    """``(name or level, is a bot)`` of an identity; ValueError for anything else."""
    for prefix, bot in ((BOT, True), (PLAYER, False)):
        if ident.startswith(prefix) and len(ident) > len(prefix):
            return ident[len(prefix) :], bot
    raise ValueError(f"not a rated identity: {ident!r}")


def seat_identity(seat: Seat) -> str | None:
    """The identity of a seat (``Seat.account`` comes from ``SeatTaken``'s public
    ``account``, set only for a registered player), or None for a guest or a free seat."""
    if seat.bot:
        return identity(seat.bot, True)
    if seat.account:
        return identity(seat.account, False)
    return None


FORFEIT = "forfeit"
TURN_TIMED_OUT = "TurnTimedOut"


def ranks(result: Result, forfeited: frozenset[int] = frozenset()) -> list[int]:
    """Every seat's rank (1 = best): winners first, then by score, forfeiting seats
    last; ties share a rank."""
    keys = [
        (seat not in forfeited, seat in result.winners, score)
        for seat, score in enumerate(result.scores)
    ]
    return [1 + sum(other > key for other in keys) for key in keys]


def forfeited_seats(envelopes: Iterable[Envelope]) -> frozenset[int] | None:
    """The seats that left the game among ``envelopes`` -- ran out of time under the
    ``forfeit`` policy, or resigned -- or None if they hold neither (the caller then looks
    further back when the result says ``forfeit``)."""
    seats: set[int] = set()
    for e in envelopes:
        if e.type == TURN_TIMED_OUT and e.data.get("policy") == FORFEIT:
            seats.add(e.data["seat"])
        elif is_resignation(e.command) and e.actor_seat is not None:
            seats.add(e.actor_seat)
    return frozenset(seats) or None


def rated_players(seats: Sequence[str | None], seat_ranks: Sequence[int]) -> list[tuple[str, int]]:
    """``(identity, rank)`` per distinct identity, by its lowest seat; guests dropped."""
    seen: set[str] = set()
    out: list[tuple[str, int]] = []
    for ident, rank in zip(seats, seat_ranks, strict=True):
        if ident is not None and ident not in seen:
            seen.add(ident)
            out.append((ident, rank))
    return out


def rateable(table: Table) -> bool:
    """Whether ``table``'s seats hold at least two distinct rated identities."""
    return len({i for i in map(seat_identity, table.seats) if i is not None}) >= 2


def ended_time(envelopes: Iterable[Envelope]) -> str | None:
    """The time of the ``GameEnded`` among ``envelopes``, if it is there."""
    return next((e.time for e in envelopes if e.type == GAME_ENDED), None)


def outcome_of(
    game_id: str,
    table: Table,
    result: Result | None,
    ended: str | None,
    forfeited: frozenset[int] = frozenset(),
) -> RatedOutcome | None:
    """The rated outcome of a finished game (``ended``: its ``GameEnded`` time;
    ``forfeited``: the seats that forfeited), or None if the game is not rated (not
    finished, or fewer than two identities)."""
    if table.status != FINISHED or result is None or ended is None:
        return None
    players = rated_players([seat_identity(s) for s in table.seats], ranks(result, forfeited))
    if len(players) < 2:
        return None
    return RatedOutcome(game_id, table.game, ended, created_us(ended), tuple(players))
