"""The one path for every command: load → decide → append → notify.

``Application`` is what HTTP handlers, bot jobs and the CLI call. It owns no
state besides a cache of tables (see ``tables.py``); correctness under many
processes rests on the store's expected-version check, never on the cache.

Failure modes, all typed: ``RuleViolation`` (engine and table rules, with their
codes), ``GameNotFound``, ``Unauthenticated``, ``Forbidden``, ``StaleVersion``
(carries the current version), ``VersionRequired``, ``IdempotencyMismatch``.
Nothing is written unless every check passed.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from engine import resign
from engine.errors import INVALID_OPTION, RuleViolation
from engine.model import JSON, Event
from engine.registry import get_game
from engine.table import (
    FINISHED,
    OPEN,
    RUNNING,
    Table,
    check_join,
    check_leave,
    check_not_expired,
    check_reissue,
    check_renew_invite,
    evolve_table,
    game_expired,
    game_idle,
    game_started,
    invite_renewed,
    player_name,
    seat_left,
    seat_taken,
    seat_token_reissued,
    turn_timed_out,
)
from engine.turnclock import TIMED_OUT, check_clock, settings_of
from events.accounts.names import name_key
from events.model.envelope import SYSTEM, bot_actor, seat_actor, timeout_actor
from events.model.errors import IdempotencyKeyReused, VersionConflict
from events.model.port import GameRef
from events.model.records import engine_rng, new_seed, seed_revealed, setup_events
from events.model.redaction import ADMIN
from events.redis_adapter.store import RedisEventStore
from service.accounts.store import Account, AccountStore, is_player_key
from service.app import documents, retries
from service.app.bot_seats import BOT_LEVELS, bot_seat_name, refuse_bot_seat_name
from service.app.errors import (
    AlreadySeated,
    Forbidden,
    GameNotFound,
    IdempotencyMismatch,
    NameRequired,
    NameReserved,
    NotFinished,
    NotSeated,
    ServerBusy,
    StaleVersion,
    TooManyOpenGames,
    TooManyUnfinishedGames,
    Unauthenticated,
    VersionRequired,
)
from service.app.invites import check_invite, invite_hash, new_invite
from service.app.live_games import LiveGames
from service.app.open_games import OpenGames
from service.app.queries import Queries
from service.app.rematches import Rematches
from service.app.tables import TableRepository
from service.tokens import matches, new_token, parse_token, token_hash

REMATCH_CLAIMS = 3
"""How often an ask claims a rematch whose claimed game never came before it gives up
(503 ``server_busy``): each failed claim was waited on for ``rematches.CREATION_WAIT_S``."""

REMATCH_JOIN_ATTEMPTS = 8
"""How often a rematch's seat is tried when other seats were taken meanwhile (each try
loses only to a seat actually taken, so a game of n seats needs at most n)."""

GAME_ID_BYTES = 9
"""Random bytes in a game id (12 URL-safe characters)."""

Identify = Callable[[Table], tuple[int, JSON]]
"""Who sends a command, told on the table it is decided on: its seat and its actor
(a person's token checked, a bot's seat, a timed-out seat's policy)."""

Rules = Callable[[Table, int], list[Event]]
"""The events of a command made outside the rules' own ``decide`` (the timeout path)."""


class Notifier(Protocol):
    """What happens after every successful append (projection feed, bot queue)."""

    def owned_by(self, game_id: str, client: str) -> None:
        """``client`` created ``game_id``, which has bot seats or a clock: its bots' turns
        and timed-out decisions use the client's share."""

    def after_append(self, game_id: str, table: Table) -> None: ...


class NoNotifier:
    """A notifier that does nothing (for tools that only write histories)."""

    def owned_by(self, game_id: str, client: str) -> None:
        return None

    def after_append(self, game_id: str, table: Table) -> None:
        return None


@dataclass(slots=True)
class Outcome:
    """A command's outcome document and its JSON text (``documents.encode_outcome``),
    encoded at most once, and only if asked for (bots never ask)."""

    document: JSON
    _text: str | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = documents.encode_outcome(self.document)
        return self._text


@dataclass(frozen=True, slots=True)
class IdleLook:
    """What :meth:`Application.expire_idle` found: ``expired`` by this call; for a game
    still running, ``look_again_at`` (Unix time) from which it may be idle for long
    enough (None: it does not run, or no longer)."""

    expired: bool
    look_again_at: float | None


@dataclass(frozen=True, slots=True)
class Joined:
    """A taken seat and its token (shown once; only its hash is stored)."""

    game_id: str
    seat: int
    token: str
    view: JSON


@dataclass(frozen=True, slots=True)
class Rematched:
    """A seat taken again in a finished game's rematch; ``invite``: the rematch's invite
    code, when this ask created an invite-only rematch (shown once), else None."""

    joined: Joined
    invite: str | None


class Application:
    """Commands and queries over games. Thread-safe; one per process."""

    def __init__(
        self,
        store: RedisEventStore,
        notifier: Notifier | None = None,
        snapshot_every: int = 100,
        open_games: OpenGames | None = None,
        accounts: AccountStore | None = None,
        live_games: LiveGames | None = None,
        rematches: Rematches | None = None,
    ) -> None:
        """``open_games``: the open-games index and per-client cap; ``live_games``: the
        running-games index and the per-client cap on unfinished games (None: neither --
        tools that only write histories). ``accounts``: the registered players (None: no
        accounts -- player keys are refused and no name is reserved). ``rematches``: the
        finished games' rematch links (None: no rematches)."""
        self.store = store
        self.rematches = rematches
        self.open_games = open_games
        self.live_games = live_games
        self.accounts = accounts
        self.tables = TableRepository(store, snapshot_every)
        self.queries = Queries(self.tables)
        self.notifier = notifier or NoNotifier()
        self._seeds: dict[str, str] = {}

    # -- lobby -------------------------------------------------------------------------

    def create_game(
        self,
        game_name: str,
        options: Mapping[str, Any] | None,
        seats: Sequence[str | None],
        client: str | None = None,
        clock: Any = None,
        invite_only: bool = False,
        *,
        game_id: str | None = None,
        rematch_of: str | None = None,
    ) -> JSON:
        """A new game with one entry per seat in ``seats``: None (a person) or a bot level.

        ``client``: who creates it (``ip:<address>``; None: an operator or a tool), counted
        against the unfinished-games cap until the game ends, and the open-games cap while
        it is open. ``clock``: the game's turn
        clock (``engine.turnclock.check_clock``; None: no clock). ``invite_only``: a
        person needs the game's invite code to take a seat (``service.app.invites``).
        Returns the spectator view, with ``"invite": <code>`` for an invite-only game --
        the only time the code is shown. ``game_id``: the new game's id (None: a fresh
        one); ``rematch_of``: the finished game it is a rematch of (``rematch``).
        RuleViolation for an unknown game, bad options, a bad clock
        (``invalid_clock``), a bad seat count or an unknown bot level; TooManyUnfinishedGames
        or TooManyOpenGames when ``client`` is at a cap.
        """
        game = get_game(game_name)
        checked = game.validate_options(options)
        clock_settings = check_clock(clock)
        check_bot_levels(seats)
        waits = any(level is None for level in seats)
        game_id = game_id or new_game_id()
        self._admit(game_id, client, waits)
        seed = new_seed()
        invite = new_invite() if invite_only else None
        code_hash = invite_hash(invite) if invite is not None else None
        events = setup_events(game, checked, len(seats), seed, clock_settings, code_hash, rematch_of)
        events += [seat_taken(i, bot_seat_name(level, i), bot=level) for i, level in enumerate(seats) if level is not None]
        if not waits:
            events.append(game_started())
        try:
            self.store.create(GameRef(game_id, game.name), events, seed, actor=SYSTEM)
        except BaseException:
            with contextlib.suppress(Exception):  # else they lapse (RESERVATION_GRACE_S)
                self._release(game_id, client, waits)
            raise
        bots = any(level is not None for level in seats)
        self._track_created(game_id, client, waits, automated=bots or clock_settings is not None)
        table = self.tables.load(game_id)
        self.notifier.after_append(game_id, table)
        view = documents.view_document(game_id, table, None)
        return view if invite is None else {**view, "invite": invite}

    def _track_created(self, game_id: str, client: str | None, waits: bool, automated: bool) -> None:
        """Index a game just written: live (and open while it ``waits`` for people), and
        owned by ``client`` if anything in it runs without a person -- a bot seat or a
        clock (``automated``): its bots' turns and timeouts then use that client's share."""
        created = time.time()
        if self.live_games is not None:
            self.live_games.created(game_id, created, client, running=not waits)
        if waits and self.open_games is not None:
            self.open_games.opened(game_id, created, client)
        if client is not None and automated:
            self.notifier.owned_by(game_id, client)

    def _admit(self, game_id: str, client: str | None, waits: bool) -> None:
        """Take ``client``'s places for a new game (``waits``: it has a free seat, so it
        is open first): TooManyUnfinishedGames or TooManyOpenGames at a cap, with
        nothing taken."""
        now = time.time()
        wait = self.live_games.admit(client, now, game_id) if self.live_games is not None else None
        if wait is not None:
            cap = self.live_games.cap  # type: ignore[union-attr]
            raise TooManyUnfinishedGames(
                f"at most {cap} unfinished games per client: finish some first", retry_after_s=int(wait)
            )
        wait = self.open_games.admit(client, now, game_id) if waits and self.open_games is not None else None
        if wait is not None:
            with contextlib.suppress(Exception):  # else it lapses (RESERVATION_GRACE_S)
                self._release(game_id, client, waits=False)
            cap = self.open_games.cap  # type: ignore[union-attr]
            raise TooManyOpenGames(
                f"at most {cap} open games per client: fill or wait for some first", retry_after_s=int(wait)
            )

    def _release(self, game_id: str, client: str | None, waits: bool) -> None:
        """Give back the places :meth:`_admit` took for a game that was not created."""
        if self.live_games is not None:
            self.live_games.released(game_id, client)
        if waits and self.open_games is not None:
            self.open_games.released(game_id, client)

    def join(
        self,
        game_id: str,
        name: Any,
        seat: int | None = None,
        account: Account | None = None,
        invite: str | None = None,
    ) -> Joined:
        """Take ``seat`` (None = the lowest free one) as ``name``; the game starts when full.

        ``account``: a registered player takes the seat under its own name (``name`` is
        ignored), at most one seat per game (AlreadySeated). A guest (no account) may not
        use a registered name, a bot seat's name (``bot_seats``) or a look-alike of
        either (NameReserved). An invite-only game wants its code in ``invite``
        (InviteRequired, checked before anything else about the caller)."""
        table = self.tables.load(game_id)
        check_invite(table, invite)
        return self._take_seat(game_id, table, name, seat, account)

    def _take_seat(self, game_id: str, table: Table, name: Any, seat: int | None, account: Account | None) -> Joined:
        """:meth:`join` once the invitation is settled (``rematch`` settles it otherwise)."""
        if account is not None:
            name = account.name
            if table.seat_of_account(name) is not None:
                raise AlreadySeated("this account already holds a seat of this game")
        else:
            if name is None:
                raise NameRequired("a guest needs a name to take a seat (or send a player key)")
            name = player_name(name)  # NFC: one spelling per name, as stored and compared
            refuse_bot_seat_name(name)
            if self.accounts is not None and self.accounts.reserved(name):
                raise NameReserved("this name, or one that looks like it, belongs to a registered player")
        chosen = check_join(table, name, seat)
        token = new_token(game_id, chosen)
        if account is not None and self.accounts is not None:
            self.accounts.seated(account, game_id)
        events = [seat_taken(chosen, name, token_hash=token_hash(token), account=None if account is None else account.name)]
        starts = len(table.free_seats()) == 1
        if starts:
            events.append(game_started())
        table = self._append(game_id, table, events, seat_actor(chosen), None, None)
        if starts and self.live_games is not None:
            self.live_games.started(game_id, time.time())  # before it leaves the open index
        if starts and self.open_games is not None:
            self.open_games.closed(game_id)
        return Joined(game_id, chosen, token, documents.view_document(game_id, table, chosen))

    # -- rematches (service.app.rematches) ----------------------------------------------

    def rematch(
        self,
        game_id: str,
        token: str | None,
        client: str | None = None,
        charge: Callable[[Sequence[str | None]], None] = lambda levels: None,
    ) -> Rematched:
        """The seat ``token`` (or the player key of its account) holds in finished game
        ``game_id``, taken again in the game's rematch: the one it has, or a game like it
        this call creates (``service.app.rematches``; its creation is ``client``'s, as a
        creation through the lobby). The seat is taken under the same name (an account's
        by the account), an invite-only rematch's without its code.

        Unauthenticated without a valid token; NotFinished before the game's end (an
        expired game has none); the join's refusals (``seat_taken`` if someone else sat
        there, ``game_already_started``, ``game_expired``, NameReserved for a guest whose
        name was registered since); a creation's caps when this call creates it.
        ``charge``: called with the bot levels of the game a creation would copy, before
        anything else is decided (the HTTP layer's creation limit: it raises to refuse)."""
        if self.rematches is None:
            raise NotFinished("this service keeps no rematches")
        old = self.tables.load(game_id)
        charge([s.bot for s in old.seats])
        seat = self.authenticate(old, game_id, token)
        if old.status != FINISHED:
            raise NotFinished("only a finished game has a rematch")
        held = old.seats[seat]
        rematch_id, invite = self._rematch_game(game_id, old, client)
        account = Account(name_key(held.account), held.account) if held.account is not None else None
        for attempt in range(REMATCH_JOIN_ATTEMPTS):
            try:
                joined = self._take_seat(rematch_id, self.tables.load(rematch_id), held.name, seat, account)
                return Rematched(joined, invite)
            except StaleVersion:
                # The other players ask at the same moment (a finished page offers it to
                # all): another seat was taken first; the table is read again.
                if attempt == REMATCH_JOIN_ATTEMPTS - 1:
                    raise
        raise AssertionError("unreachable")

    def rematch_of(self, game_id: str) -> str | None:
        """The id of ``game_id``'s rematch, if one was asked for (GameNotFound for an
        unknown game). Public: who plays the rematch is in its own seats."""
        if not self._exists(game_id):
            raise GameNotFound(f"no game {game_id!r}", game_id=game_id)
        found = self.rematches.find(game_id) if self.rematches is not None else None
        # A claim is written before its game: a link to a game not there (yet) is none.
        return found if found is not None and self._exists(found) else None

    def _exists(self, game_id: str) -> bool:
        """Whether ``game_id`` has a history, in Redis or the archive (its head: one read,
        no table load)."""
        return self.store.head(game_id).version > 0

    def _rematch_game(self, game_id: str, old: Table, client: str | None) -> tuple[str, str | None]:
        """The id of finished game ``game_id``'s rematch, created now if it has none, and
        the new game's invite code if this call created an invite-only one."""
        assert self.rematches is not None
        for _ in range(REMATCH_CLAIMS):
            wanted = new_game_id()
            claimed = self.rematches.claim(game_id, wanted)
            if claimed is None:
                break
            if self.rematches.wait_created(claimed, self._exists):
                return claimed, None
            self.rematches.release(game_id, claimed)  # its creator failed: claim anew
        else:
            raise ServerBusy("the rematch is being created by another seat: ask again")
        clock = settings_of(old.clock) if old.clock is not None else None
        try:
            view = self.create_game(
                old.game, old.options, [s.bot for s in old.seats], client, clock, old.invite_only,
                game_id=wanted, rematch_of=game_id,
            )
        except BaseException:
            with contextlib.suppress(Exception):  # else the next asker gives it up
                self.rematches.release(game_id, wanted)
            raise
        return wanted, view.get("invite")

    def reissue_token(self, game_id: str, account: Account, seat: int) -> Joined:
        """A fresh token for ``seat``, which ``account`` holds; the old token is void from
        the appended ``SeatTokenReissued`` on (every command is checked against the table
        it is decided on, and that table holds the new hash: no lookup of its own).
        NotSeated if the account does not hold ``seat``; RuleViolation once the game is over."""
        table = self.tables.load(game_id)
        if not 0 <= seat < len(table.seats) or table.seats[seat].account != account.name:
            raise NotSeated(f"this account does not hold seat {seat} of this game", seat=seat)
        check_reissue(table, seat)
        token = new_token(game_id, seat)
        table = self._append(game_id, table, [seat_token_reissued(seat, token_hash(token))], seat_actor(seat), None, None)
        return Joined(game_id, seat, token, documents.view_document(game_id, table, seat))

    def renew_invite(self, game_id: str, token: str | None) -> str:
        """A new invite code for ``game_id``, asked by the seat ``token`` (or player key)
        holds; the old code seats nobody from the appended ``InviteRenewed`` on (every
        join is checked against the table it is decided on). The code is shown this
        once. Unauthenticated without a valid token; RuleViolation ``not_invite_only``,
        ``game_already_started`` or ``game_expired``."""
        table = self.tables.load(game_id)
        seat = self.authenticate(table, game_id, token)
        check_renew_invite(table, seat)
        invite = new_invite()
        self._append(game_id, table, [invite_renewed(seat, invite_hash(invite))], seat_actor(seat), None, None)
        return invite

    def leave(self, game_id: str, token: str | None) -> JSON:
        """Give a seat up before the game starts; returns the spectator view."""
        table = self.tables.load(game_id)
        seat = self.authenticate(table, game_id, token)
        check_leave(table, seat)
        table = self._append(game_id, table, [seat_left(seat)], seat_actor(seat), None, None)
        return documents.view_document(game_id, table, None)

    def expire(self, game_id: str, open_s: int, now: datetime) -> bool:
        """Record ``GameExpired`` if ``game_id`` is still open ``open_s`` seconds after its
        creation (the sweeper's job); True if this call expired it.

        Through the table path like a join (expected version = the table's): a seat
        taken meanwhile makes it conflict, and the game is looked at again next pass.
        Expired is final; the seed is *not* revealed -- nothing was played, so nothing
        needs verifying, and the deal stays as hidden as in any game nobody finished.
        """
        table = self.tables.load(game_id)
        if table.status != OPEN or now - _parse_time(table.created) < timedelta(seconds=open_s):
            return False
        try:
            self._append(game_id, table, [game_expired(open_s)], SYSTEM, None, None)
        except StaleVersion:
            return False
        if self.open_games is not None:
            self.open_games.closed(game_id)
        return True

    def expire_idle(self, game_id: str, idle_ttl_s: int, now: datetime) -> IdleLook:
        """Record ``GameExpired`` (reason ``idle``) if ``game_id`` runs and nothing was
        written to it for ``idle_ttl_s`` seconds (the sweeper's job); says whether this
        call expired it and, for a game still running, when to look again (its last
        event's time: the index is scored from there).

        Through the table path at the table's version, like :meth:`expire`: a command
        at the same moment wins (the expiry conflicts, and the game is looked at again).
        The seed is *not* revealed, as for a game that never started: the game has no
        result, and its hidden facts stay as hidden as in any game nobody finished."""
        table = self.tables.load(game_id)
        if table.status != RUNNING:
            return IdleLook(expired=False, look_again_at=None)
        last = _parse_time(self.store.read_range(game_id, ADMIN, table.version, table.version)[0].time)
        if now - last < timedelta(seconds=idle_ttl_s):
            return IdleLook(expired=False, look_again_at=last.timestamp())
        try:
            self._append(game_id, table, [game_idle(int((now - last).total_seconds()))], SYSTEM, None, None)
        except StaleVersion:
            return IdleLook(expired=False, look_again_at=now.timestamp())  # written to meanwhile
        return IdleLook(expired=True, look_again_at=None)

    # -- play --------------------------------------------------------------------------

    def submit(
        self,
        game_id: str,
        token: str | None,
        command: Any,
        expected_version: int | None,
        idempotency_key: str | None = None,
    ) -> JSON:
        """A person's command, checked against their seat token. Returns the outcome document."""
        return self.submit_outcome(game_id, token, command, expected_version, idempotency_key).document

    def submit_outcome(
        self,
        game_id: str,
        token: str | None,
        command: Any,
        expected_version: int | None,
        idempotency_key: str | None = None,
    ) -> Outcome:
        """:meth:`submit`, answering the :class:`Outcome` (for callers that send its text)."""

        def person(table: Table) -> tuple[int, JSON]:
            seat = self.authenticate(table, game_id, token)
            return seat, seat_actor(seat)

        return self._command(game_id, person, command, expected_version, idempotency_key)

    def submit_as_bot(self, game_id: str, seat: int, command: Any, expected_version: int, idempotency_key: str) -> JSON:
        """A bot's command for ``seat`` (trusted caller: the bot worker). Same path as people."""

        def bot(table: Table) -> tuple[int, JSON]:
            if not 0 <= seat < len(table.seats) or table.seats[seat].bot is None:
                raise Forbidden(f"seat {seat} is not a bot seat", seat=seat)
            return seat, bot_actor(seat)

        return self._command(game_id, bot, command, expected_version, idempotency_key).document

    def record_timeout(self, game_id: str, table: Table, seat: int, deadline: str) -> Table:
        """Append ``TurnTimedOut`` for ``seat`` (the sweeper's job, see
        ``service.app.timeouts``) at the table's version, as the system, under the key
        ``sys:timeout:<version>`` (the server's own scope). StaleVersion if the game moved
        on meanwhile (the seat moved in time, or another sweeper recorded it)."""
        assert table.clock is not None
        event = turn_timed_out(seat, table.clock.policy, deadline)
        return self._append(game_id, table, [event], SYSTEM, None, f"sys:timeout:{table.version}")

    def decide_timed_out(
        self, game_id: str, table: Table, seat: int, command: JSON | None, events: list[Event]
    ) -> Outcome:
        """Append the decision the clock's policy made for ``seat`` after its
        ``TurnTimedOut`` (``engine.timeout.policy_decision`` on ``table``): through the
        one command path, as ``{"kind": "timeout", "seat": seat}``, at the table's
        version, under the key ``sys:timeout:<version>:<seat>``. StaleVersion if another
        sweeper appended it first."""

        def policy(current: Table) -> tuple[int, JSON]:
            if current.clock is None or current.clock.pending != seat:
                raise Forbidden(f"seat {seat} has no timeout to decide", seat=seat)
            return seat, timeout_actor(seat)

        return self._command(
            game_id, policy, command, table.version, f"timeout:{table.version}:{seat}", rules=lambda _t, _s: events
        )

    def finish_reveal(self, game_id: str, table: Table) -> bool:
        """Reveal the seed of a finished game whose reveal was lost (its writer died
        between ``GameEnded`` and ``SeedRevealed``); True if it was missing."""
        if table.status != FINISHED or table.seed is not None:
            return False
        self._reveal_seed(game_id, table)
        self.notifier.after_append(game_id, self.tables.load(game_id))
        return True

    def _command(
        self,
        game_id: str,
        identify: Identify,
        command: Any,
        expected: int | None,
        key: str | None,
        rules: Rules | None = None,
    ) -> Outcome:
        """The shared command path. ``identify`` names the seat and actor on the table the
        command is decided on, so a token is always checked against that very table.

        ``key`` (an idempotency key) is stored under the verified actor's scope
        (``retries.scoped_key``). A known key is answered with the first outcome, rebuilt
        from the stored events: when the client's version is behind (looked up before
        deciding), when the decision fails at the current version (looked up then: the
        first call may have been what moved the game there, e.g. ended it), and when
        the decision succeeds (the append script answers ``dup``). So the normal path
        costs no extra round trip. ``rules`` (the timeout path only) gives the events
        instead of ``game.decide``, once every check passed (``command`` may then be None)."""
        table = self.tables.cached(game_id) or self.tables.load(game_id)
        if expected is not None and key is None and table.version != expected:
            # Behind the client (another process took the last command): catch up first,
            # so the token is checked once, on the table the command is decided on.
            table = self.tables.load(game_id)
        table, seat, actor = self._identified(game_id, table, identify)
        if expected is None:
            raise VersionRequired("send the version you acted on (If-Match or expected_version)")
        if key is not None:
            key = retries.scoped_key(actor, key)
        if key is not None and table.version != expected:
            earlier = self._recall(game_id, key, actor, command, identify)
            if earlier is not None:
                return earlier
        if table.version != expected:
            table = self.tables.load(game_id)  # the client may be right
            seat, actor = identify(table)
        if table.version != expected:
            raise StaleVersion(f"the game is at version {table.version}, not {expected}", table.version)
        try:
            events = self._decide(game_id, table, seat, actor, command, rules)
        except RuleViolation:
            earlier = self._after_refusal(game_id, key, actor, command, identify, expected)
            if earlier is None:
                raise
            return earlier
        return self._write(game_id, table, seat, actor, command, events, key, identify)

    def _identified(
        self, game_id: str, table: Table, identify: Identify
    ) -> tuple[Table, int, JSON]:
        """``identify`` on ``table``, or on the current table if it refuses: this process's
        cached table may predate the seat being taken. Raises what ``identify`` raises on
        the current table."""
        try:
            seat, actor = identify(table)
        except (Unauthenticated, Forbidden, NotSeated):
            table = self.tables.load(game_id)
            seat, actor = identify(table)
        return table, seat, actor

    def _decide(
        self, game_id: str, table: Table, seat: int, actor: JSON, command: Any, rules: Rules | None
    ) -> list[Event]:
        """The events of ``command`` by ``seat`` on ``table``; RuleViolation if the game does
        not run, a timed-out turn awaits its policy's decision, or the rules refuse it."""
        self._check_running(table)
        if table.clock is not None and table.clock.pending is not None and actor.get("kind") != "timeout":
            # The clock's policy owns this decision now (service.app.timeouts): a late
            # command would break the history's rule that the decision follows.
            raise RuleViolation(TIMED_OUT, "this turn timed out: the clock's policy is deciding it")
        if rules is not None:
            return rules(table, seat)
        game = get_game(table.game)
        # engine.resign.decide: a resignation under the table's rule, any other command
        # under the game's own (the verifier's re-run calls the same).
        rng = engine_rng(self.seed(game_id), game.rules_version)
        return resign.decide(game, table.state, seat, command, rng)

    def _after_refusal(
        self, game_id: str, key: str | None, actor: JSON, command: Any, identify: Identify, expected: int
    ) -> Outcome | None:
        """What a refused command answers instead of its RuleViolation (None: the refusal
        stands). A retry naming the version its first call produced (e.g. the move that
        ended the game) gets the first outcome, not a verdict on the position it made; a
        client whose version is gone gets StaleVersion (the refusal may come from this
        process's cached table while the game has moved on)."""
        earlier = self._recall(game_id, key, actor, command, identify) if key is not None else None
        if earlier is not None:
            return earlier
        current = self.tables.load(game_id).version
        if current != expected:
            raise StaleVersion(f"the game is at version {current}, not {expected}", current) from None
        return None

    def _write(
        self,
        game_id: str,
        table: Table,
        seat: int,
        actor: JSON,
        command: Any,
        events: list[Event],
        key: str | None,
        identify: Identify,
    ) -> Outcome:
        """Append ``events`` at ``table``'s version and answer their outcome (or, for a
        key the store already holds, the first outcome); then the seed's reveal at the
        end, the live index and the notifier. StaleVersion if the game moved on meanwhile,
        IdempotencyMismatch for a key used with another command."""
        after = self._fold(table, events)
        try:
            result = self.store.append(
                GameRef(game_id, table.game), events, table.version, key, actor=actor,
                command=None if command is None else dict(command),
            )
        except VersionConflict as conflict:
            self.tables.load(game_id)
            raise StaleVersion(f"the game moved on to version {conflict.current_version}", conflict.current_version) from None
        except IdempotencyKeyReused:
            raise IdempotencyMismatch("this idempotency key was used for another command") from None
        if result.duplicate:
            seat = self._holder_now(game_id, identify)
            return Outcome(retries.replay_outcome(self.store, game_id, result, seat))
        if after.clock is not None and result.time:
            after = self._fold(table, events, result.time)  # the clock runs on the stored time
        self.tables.remember(game_id, after)
        if after.status == FINISHED:
            self._reveal_seed(game_id, after)
            if self.live_games is not None:
                self.live_games.stopped(game_id)  # lost to a crash: the sweeper drops it
        self.notifier.after_append(game_id, self.tables.cached(game_id) or after)
        return Outcome(documents.outcome_document(game_id, after, events, seat))

    # -- helpers -----------------------------------------------------------------------

    def seat_of(self, game_id: str, token: str | None) -> int | None:
        """The seat a token holds (None without a token: a spectator); Unauthenticated for a bad one."""
        return self.seat_and_table(game_id, token)[0]

    def seat_and_table(self, game_id: str, token: str | None) -> tuple[int | None, Table | None]:
        """:meth:`seat_of`, with the table at the game's head it was checked on (None
        without a token): a read hands it on to :class:`Queries`, so it loads the table once."""
        if not token:
            return None, None
        # Reads check against the current table: a cached one might still hold a token
        # whose seat was given up and taken by someone else.
        table = self.tables.load(game_id)
        return self.authenticate(table, game_id, token), table

    def authenticate(self, table: Table, game_id: str, token: str | None) -> int:
        """The seat ``token`` holds at ``table``; Unauthenticated otherwise (never says why
        in more detail than "invalid", so tokens cannot be probed)."""
        if not token:
            raise Unauthenticated("a seat token is required (Authorization: Bearer <token>)")
        if is_player_key(token):
            return self._account_seat(table, token)
        claim = parse_token(token)
        if claim is None or claim.game_id != game_id or not 0 <= claim.seat < len(table.seats):
            raise Unauthenticated("invalid seat token for this game")
        if not matches(token, table.seats[claim.seat].token_hash):
            raise Unauthenticated("invalid seat token for this game")
        return claim.seat

    def _account_seat(self, table: Table, player_key: str) -> int:
        """The seat the player key's account holds at ``table`` (at most one per game).
        The key is resolved once per process (then cached: no round trip per command)."""
        account = self.accounts.resolve(player_key) if self.accounts is not None else None
        if account is None:
            raise Unauthenticated("invalid player key")
        seat = table.seat_of_account(account.name)
        if seat is None:
            raise NotSeated("this account holds no seat of this game")
        return seat

    def _check_running(self, table: Table) -> None:
        check_not_expired(table)
        if table.status == OPEN:
            raise RuleViolation("game_not_started", "the game starts when every seat is taken", {"free": table.free_seats()})
        if table.status != RUNNING:
            raise RuleViolation("game_over", "the game is over")

    def _fold(self, table: Table, events: Sequence[Event], time: str = "") -> Table:
        """The table after ``events`` (engine events). Their time plays a part only in a
        turn clock, folded again with the stamp the store gave them (empty: not yet)."""
        game = get_game(table.game)
        for event in events:
            table = evolve_table(game, table, event, table.version + 1, time)
        return table

    def seed(self, game_id: str) -> str:
        """The game's secret seed, for the engine only (cached: it never changes)."""
        seed = self._seeds.get(game_id)
        if seed is None:
            seed = self._seeds[game_id] = self.store.secret_seed(game_id)
            if len(self._seeds) > 10_000:
                self._seeds.clear()
        return seed

    def _append(self, game_id: str, table: Table, events: list[Event], actor: JSON, command: JSON | None, key: str | None) -> Table:
        """Append a table batch (join/leave) at the table's version; StaleVersion on a race."""
        try:
            self.store.append(GameRef(game_id, table.game), events, table.version, key, actor=actor, command=command)
        except VersionConflict as conflict:
            self.tables.load(game_id)
            raise StaleVersion("the table changed meanwhile; try again", conflict.current_version) from None
        after = self.tables.load(game_id)
        self.notifier.after_append(game_id, after)
        return after

    def _reveal_seed(self, game_id: str, table: Table) -> None:
        """Append ``SeedRevealed`` right after ``GameEnded``. No idempotency key: the
        expected version makes it idempotent -- after the end nothing but the reveal can
        be appended, so a conflict means another process revealed it already. (It once
        had a fixed key in the clients' namespace, which a client could take first.)"""
        try:
            self.store.append(
                GameRef(game_id, table.game), [seed_revealed(self.seed(game_id))], table.version, actor=SYSTEM
            )
        except VersionConflict:
            pass  # another process revealed it first
        self.tables.load(game_id)  # with SeedRevealed

    def _recall(
        self, game_id: str, key: str, actor: JSON, command: Any, identify: Identify
    ) -> Outcome | None:
        """The outcome of an earlier call with the (scoped) ``key``, if there was one,
        rebuilt as its seat saw it, for a caller that holds the seat now
        (:meth:`_holder_now`). IdempotencyMismatch if the key came with another command."""
        try:
            earlier = self.store.recall(
                game_id, key, actor, dict(command) if isinstance(command, Mapping) else None
            )
        except IdempotencyKeyReused:
            raise IdempotencyMismatch("this idempotency key was used for another command") from None
        if earlier is None:
            return None
        seat = self._holder_now(game_id, identify)
        return Outcome(retries.replay_outcome(self.store, game_id, earlier, seat))

    def _holder_now(self, game_id: str, identify: Identify) -> int:
        """The seat ``identify`` names on the game's *current* table. An answer served from
        the past (a retry's) goes only to a caller that holds its seat now: idempotency
        keys are scoped by seat, not by token, and this process's cached table -- on which
        the caller was first checked -- may predate the seat's token being reissued; a
        new decision is safe on a stale table (its append would be refused), a replay is
        not. Unauthenticated (or what ``identify`` raises) otherwise. One load, on retries only."""
        return identify(self.tables.load(game_id))[0]


def check_bot_levels(seats: Sequence[str | None]) -> None:
    """RuleViolation ``invalid_option`` unless every seat is None (a person) or a bot level."""
    for seat, level in enumerate(seats):
        if level is not None and level not in BOT_LEVELS:
            raise RuleViolation(INVALID_OPTION, f"seat {seat}: unknown bot level {level!r}", {"levels": list(BOT_LEVELS)})


def new_game_id() -> str:
    """A fresh game id: 72 random bits, URL-safe, never starting with ``-``.

    Why not every ``token_urlsafe``: an id starting with ``-`` reads as an option on a
    command line (``http_bot.py --game-id -x...`` failed in a test, one game in 64).
    Drawing again keeps the ids uniform over those allowed."""
    while (game_id := secrets.token_urlsafe(GAME_ID_BYTES)).startswith("-"):
        pass
    return game_id


def _parse_time(text: str) -> datetime:
    """An envelope's time (``events.model.clock``: ISO 8601 UTC with ``Z``) as an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
