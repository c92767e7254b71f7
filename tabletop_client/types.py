"""The documents of the tabletop API as typed dictionaries.

Each ``TypedDict`` here mirrors one schema of ``openapi.yaml`` field for field
(``tests/unit/test_client_types.py`` checks that every field exists in the spec
and every spec field exists here, required ones as required), so a type checker
sees the exact shape a server answers with, and the answers stay plain JSON:
nothing is copied, renamed or dropped. Commands are JSON objects in the game's
own form (``docs/rules/<game>.md``); the server's legal list is the source of truth.
"""

from typing import Any, Literal, NotRequired, TypedDict

Status = Literal["open", "running", "finished", "expired"]
BotLevel = Literal["random", "greedy", "strong"]
Colour = Literal["red", "blue", "green", "yellow"]
Card = int | Literal["X"]
"""A number card 1..13, or ``"X"`` for a joker."""
Command = dict[str, Any]
"""A command in the game's JSON form, e.g. ``{"kind": "move", "ear": 3, "to": "f5"}``."""
ToAct = dict[str, list[str]]
"""Seat number (as a string) -> the command kinds it may send now."""


class Problem(TypedDict):
    """An error answer (RFC 9457 problem details with a stable ``code``)."""

    type: str
    title: str
    status: int
    detail: str
    code: str
    current_version: NotRequired[int]
    errors: NotRequired[dict[str, Any]]
    details: NotRequired[dict[str, Any]]


class OptionSpec(TypedDict):
    name: str
    type: Literal["int", "bool", "choice"]
    default: int | bool | str
    description: str
    minimum: NotRequired[int]
    maximum: NotRequired[int]
    choices: NotRequired[list[str]]


class CommandSpec(TypedDict):
    kind: str
    description: str
    fields: dict[str, str]
    example: Command


class CatalogueGame(TypedDict):
    name: str
    title: str
    rules_version: str
    min_players: int
    max_players: int
    options: list[OptionSpec]
    commands: list[CommandSpec]
    bot_levels: list[BotLevel]


class Catalogue(TypedDict):
    games: list[CatalogueGame]


class SeatInfo(TypedDict):
    """Who sits in a seat (``name`` null while it is free)."""

    seat: int
    name: str | None
    bot: BotLevel | None
    guest: bool
    """A person without an account (false for registered players, bots, free seats)."""


class Result(TypedDict):
    scores: list[int]
    winners: list[int]
    reason: str
    turns: int


class BoardEar(TypedDict):
    id: int
    field: str
    colour: Colour | None


class SchlitzohrBoard(TypedDict):
    layout: str
    files: int
    ranks: int
    targets: dict[str, list[str]]
    blocked: list[str]
    starts: list[str]
    ears: list[BoardEar]


class LastRoll(TypedDict):
    purpose: Literal["turn", "peek", "joker"]
    value: int


class SchlitzohrState(TypedDict):
    """The Schlitzohr part of a view (``docs/rules/schlitzohr.md``, "The view")."""

    game: Literal["schlitzohr"]
    viewer: int | None
    players: int
    options: dict[str, Any]
    board: SchlitzohrBoard
    known_colours: list[Colour | None]
    inspected: list[list[int]]
    seat_colours: list[Colour]
    jokers_left: list[int]
    scores: list[int]
    turn: int
    active_seat: int | None
    phase: Literal["start", "six", "moving", "inspect", "done", "over"]
    pips_left: int
    inspect_count: int
    last_roll: LastRoll | None
    result: Result | None
    forfeited: list[int]


class CardSet(TypedDict):
    number: int | None
    count: int
    jokers: int


class AbluxxenToAct(TypedDict):
    seat: int
    kinds: list[str]


class AbluxxenState(TypedDict):
    """The Abluxxen part of a view (``docs/rules/abluxxen.md``, "The view")."""

    game: Literal["abluxxen"]
    players: int
    options: dict[str, Any]
    round: int
    start_seat: int
    turn: int
    active: int
    phase: Literal["play", "choose", "reclaim", "draw", "bonus", "over"]
    to_act: AbluxxenToAct | None
    seat: int | None
    hand: list[Card] | None
    hand_sizes: list[int]
    rows: list[list[CardSet]]
    display: list[Card]
    pile_size: int
    discard: list[Card]
    victim: int | None
    victims_pending: list[int]
    set_in_dispute: CardSet | None
    owed: int
    scores: list[int]
    banked_scores: list[int]
    banked_hand_cards: list[int]
    result: Result | None
    hands: NotRequired[list[list[Card]]]
    pile: NotRequired[list[Card]]


class Clock(TypedDict):
    """A game's turn clock (public): each person's seat has ``per_decision_s`` per
    decision plus a ``reserve_s`` for the whole game; ``policy`` decides for a seat that
    lets its deadline pass."""

    per_decision_s: int
    reserve_s: int
    policy: Literal["bot:random", "bot:greedy", "forfeit"]
    reserve_left_ms: dict[str, int]
    timed_out: int | None


class ClockSettings(TypedDict):
    """A turn clock to create a game with (``create_game(clock=...)``): seconds per
    decision (1..604,800), a reserve for the whole game (0..604,800; default 0), and
    what decides for a seat whose time runs out."""

    per_decision_s: int
    reserve_s: NotRequired[int]
    policy: Literal["bot:random", "bot:greedy", "forfeit"]


class Deadline(TypedDict):
    """When a seat to act times out: ISO 8601 UTC and Unix milliseconds."""

    at: str
    at_ms: int


class View(TypedDict):
    """A game as one viewer sees it at one version."""

    game_id: str
    game: Literal["abluxxen", "schlitzohr"]
    version: int
    status: Status
    you: int | None
    seats: list[SeatInfo]
    options: dict[str, Any]
    created: str
    commitment: str
    seed: str | None
    to_act: ToAct
    result: Result | None
    state: SchlitzohrState | AbluxxenState | None
    clock: Clock | None
    deadlines: dict[str, Deadline]
    invite_only: bool
    rematch_of: str | None
    """The finished game this one is the rematch of (:meth:`~tabletop_client.Seat.rematch`)."""
    invite: NotRequired[str]
    """Only in :meth:`~tabletop_client.Client.create_game`'s answer for an invite-only game."""


class Invite(TypedDict):
    """An invite-only game's new invite code (:meth:`~tabletop_client.Seat.renew_invite`)."""

    game_id: str
    invite: str


class Joined(TypedDict):
    game_id: str
    seat: int
    token: str
    view: View


class Rematched(TypedDict):
    """A seat taken again in a finished game's rematch (:meth:`~tabletop_client.Seat.rematch`)."""

    game_id: str
    seat: int
    token: str
    view: View
    invite: NotRequired[str]
    """The rematch's invite code, only for the ask that created an invite-only rematch."""


class RematchLink(TypedDict):
    """Which game is a finished game's rematch (:meth:`~tabletop_client.Client.rematch_of`)."""

    game_id: str
    rematch: str | None


class Legal(TypedDict):
    game_id: str
    version: int
    status: Status
    you: int | None
    to_act: ToAct
    commands: list[Command]


# The functional form: ``from`` is a keyword, so it cannot be a class attribute.
Choice = TypedDict(
    "Choice", {"field": str, "from": list[int], "count": int, "order": Literal["ascending"]}
)
"""``count`` distinct items of ``from`` put into ``field``, sent in ascending order."""


class CommandChoice(TypedDict):
    """A k-of-n pick described once (``/legal?form=compact``): every command that puts
    ``choose.count`` items of ``choose.from`` into ``choose.field``; other fields as given."""

    kind: str
    choose: Choice


class LegalCompact(TypedDict):
    game_id: str
    version: int
    status: Status
    you: int | None
    to_act: ToAct
    commands: list[Command | CommandChoice]


class StreamTicket(TypedDict):
    """Opens this game's stream once, within ``expires_in`` seconds: for clients (browsers'
    ``EventSource``) that cannot send an ``Authorization`` header on a stream."""

    ticket: str
    seat: int | None
    expires_in: int


class Registered(TypedDict):
    """A registered account: its name as spelled, and its player key -- shown once."""

    name: str
    player_key: str


class MyAccount(TypedDict):
    """The account a player key belongs to: its registered name."""

    name: str


class MyGame(TypedDict):
    game_id: str
    seat: int | None
    status: Status | None
    version: int | None
    to_move: bool
    deadline: Deadline | None


class MyGames(TypedDict):
    """A page of an account's games, newest first; ``next_cursor`` pages on."""

    games: list[MyGame]
    next_cursor: int | None


class OutcomeEvent(TypedDict):
    type: str
    data: dict[str, Any]
    version: int
    private: dict[str, Any] | None
    visible_to: list[int]


class Outcome(TypedDict):
    game_id: str
    version: int
    events: list[OutcomeEvent]
    view: View


class Actor(TypedDict):
    kind: Literal["system", "seat", "bot"]
    seat: NotRequired[int]


class Envelope(TypedDict):
    """One stored event with its metadata, redacted for the caller."""

    actor: Actor
    command: Command | None
    data: dict[str, Any]
    game_id: str
    hash: str
    prev_hash: str
    private: dict[str, Any] | None
    private_digest: NotRequired[str | None]
    command_digest: NotRequired[str | None]
    seal: NotRequired[int]
    schema_version: int
    time: str
    type: str
    version: int
    visible_to: list[int]
    redacted: bool


class EventPage(TypedDict):
    game_id: str
    head: int
    events: list[Envelope]
    next_after: int | None


class GameSummarySeat(TypedDict):
    name: str
    bot: BotLevel | None
    guest: NotRequired[bool]


class GameSummary(TypedDict):
    game_id: str
    game: str
    status: Status
    created: str
    seats: list[GameSummarySeat | None]
    options: dict[str, Any]
    version: int
    invite_only: bool
    rematch_of: str | None


class GameList(TypedDict):
    games: list[GameSummary]
    next_cursor: str | None


# Ratings (issue 15): openskill Plackett-Luce per game type; ``ordinal`` = mu - 3 sigma.


class Rating(TypedDict):
    name: str
    bot: bool
    mu: float
    sigma: float
    ordinal: float
    games: int


class LeaderboardEntry(Rating):
    position: int


class Leaderboard(TypedDict):
    game: str
    ratings: list[LeaderboardEntry]
    next_cursor: str | None


class RatingPoint(TypedDict):
    mu: float
    sigma: float
    ordinal: float


class RatedGame(TypedDict):
    game_id: str
    ended: str
    rank: int
    rated_players: int
    before: RatingPoint
    after: RatingPoint


class RatingHistory(TypedDict):
    game: str
    name: str
    bot: bool
    rating: Rating | None
    history: list[RatedGame]
    next_cursor: str | None


class GameRatings(TypedDict):
    """One game type's entry of a player page's ``ratings``."""

    rating: Rating | None
    history: list[RatedGame]
    history_next: str | None


class PlayerTotals(TypedDict):
    name: str
    games: int
    wins: int
    points: int
    registered: bool
    ratings: dict[str, GameRatings]


class Discrepancy(TypedDict):
    version: int
    kind: Literal["structure", "chain", "commitment", "random_outcome", "rules", "score"]
    message: str


class Verification(TypedDict):
    ok: bool
    game_id: str | None
    game: str | None
    events: int
    commands: int
    result: dict[str, Any] | None
    discrepancy: Discrepancy | None
