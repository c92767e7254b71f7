"""The Redis key schema: every key the event store uses, built in one place.

All keys start with a configurable prefix (``TABLETOP_KEY_PREFIX``, default
``tt:``). Every key of one game carries the hash tag ``{<game id>}``, so Redis
Cluster puts all of them in one slot and a Lua script may touch them together
(no CROSSSLOT). The prefix must therefore not contain ``{`` or ``}``: Redis hashes
the first ``{...}`` of a key.

Keys (``<p>`` = the prefix):

``<p>game:{<id>}:events`` -- stream
    One entry per event: entry id ``<version>-0``, one field ``e`` = the canonical
    envelope JSON. Written only by ``scripts.APPEND``; never trimmed, never edited.
``<p>game:{<id>}:live`` -- a pub/sub channel, not a key
    ``scripts.APPEND`` publishes each batch it appends there (standalone Redis only),
    for the event streams and long polls following the game (``service.http.live``).
``<p>game:{<id>}:head`` -- hash
    ``v`` = last version, ``h`` = its hash, ``e`` = version of the ``GameEnded``
    event (absent while the game runs). Written only by ``scripts.APPEND``; read by
    appenders (the hash to continue) and readers (is the game finished?).
``<p>game:{<id>}:idem`` -- hash
    Scoped idempotency key -> JSON record of the first result: ``first``/``last``
    version, head ``hash``, request ``fingerprint`` (about 200 bytes; records written
    before slim records also hold ``response``, the full first answer). Fields are
    ``seat:<n>:<client key>`` (a person's key, scoped to the verified seat) or
    ``bot:<n>:<version>`` (a bot turn); see ``service.app.retries``. Written only by
    ``scripts.APPEND``, which also sets its TTL (``TABLETOP_IDEMPOTENCY_TTL_S``) with
    the append that ends the game.
``<p>game:{<id>}:seed`` -- string
    The secret seed (hex). Written once by ``scripts.APPEND``, together with
    ``GameCreated``; read only to seed the engine and to reveal it after the end.
``<p>game:{<id>}:snapshot`` -- hash
    ``v`` = version, ``r`` = rules version, ``s`` = encoded state. Written by
    ``scripts.SAVE_SNAPSHOT`` (only if newer); a cache: deleting it is always safe.
``<p>game:{<id>}:verification`` -- string
    The verification report (JSON) of a finished game whose history ends with
    ``SeedRevealed``: it can never change, so it is computed once. Written with SET NX
    by ``service/app/verification.py``; a cache: deleting it is always safe.

Archived games (``service/app/archiving.py``): once a finished game moved to the archive
(``events.archive``), all of its keys above and its projected ``view`` are deleted in one
script; only its ``summary`` (and its lobby and totals entries) stay. A game without a
``head`` key is read from the archive, if it is there.

Bot turns (``service/app/notify.py`` writes, ``workers/sweeper.py`` reads):

``<p>bots:waiting`` -- sorted set
    Member = id of a running game whose next turn belongs to a bot, score = Unix
    time when that wait began (the sweeper bumps it when it re-enqueues). Written
    after every append of a game with bot seats: ZADD while a bot must act, ZREM
    otherwise. The sweeper re-enqueues members older than ``bot_stall_s``. Derived
    data: rebuilt by the next append of each game if lost.
``<p>game:{<id>}:botowner`` -- string with a TTL (a week)
    The client (``ip:<address>``) that created a game with a bot seat or a turn clock,
    whose share of the bot work its bot turns and timeouts use
    (``service/app/bot_share.py``). Written at creation, read by the notifier before each
    bot turn and by the sweeper before each timeout; absent for games an operator created.
``<p>game:{<id>}:rematch`` -- string with a TTL (two days)
    The id of finished game ``<id>``'s rematch (``service/app/rematches.py``): claimed
    with SET NX by the first seat asking for one, before the rematch is written; read
    by the later asks and by ``GET /v1/games/{id}/rematch``. An index (the truth is the
    rematch's ``GameCreated``); the archive leaves it to its TTL.
``<p>botshare:<client>`` -- string with a TTL, on RQ's Redis (below)
    The time (Redis' clock, seconds) up to which that client's share of the bot workers
    is spent; expires once it lies far enough in the past to count as a full burst.
``<p>sweeper:alive`` -- string with a TTL
    Time of the sweeper's last pass; its health check. Expires after a few missed passes.
``<p>worker:alive:<name>`` -- string with a TTL
    Heartbeat of bot worker ``<name>`` (``workers/rq_worker.py``): JSON with its host,
    pid, queues and the id of the job it runs (or null). Refreshed every second with a
    TTL of a few seconds: ``tabletop health worker`` reads it, and the sweeper treats a
    "started" job whose worker has none as abandoned.
``<p>workers`` -- sorted set
    Member = a bot worker's name, score = Unix time of its last heartbeat: the index
    ``tabletop health worker`` reads (never a keyspace scan). Members silent for an
    hour are dropped by the live workers.

Open games (``service/app/open_games.py`` writes, ``workers/sweeper.py`` reads):

``<p>games:open`` -- sorted set
    Member = id of a game created with a free seat, score = Unix time of its creation.
    Added at creation, removed when the game starts or expires. The sweeper records
    ``GameExpired`` for members older than ``TABLETOP_OPEN_GAME_TTL_S`` still open.
``<p>opengames:{<client>}`` -- sorted set with a TTL
    The open games one client created (``<client>`` = ``ip:<address>``; same members
    and scores), and ``r:<game id>`` for each creation in flight (score: when it was
    reserved); counted against ``TABLETOP_MAX_OPEN_GAMES_PER_CLIENT`` at creation, where a
    script adds the reservation only below the cap; members no longer in ``games:open``
    and reservations older than a minute dropped then. Expires a day after the
    open-game TTL, renewed by each creation.

Unfinished games (``service/app/live_games.py`` writes, ``workers/sweeper.py`` reads):

``<p>games:running`` -- sorted set
    Member = id of a running game, score = Unix time from which the sweeper looks at it
    (when it started, then its last event's time). Added when the game starts, removed
    when it ends or expires. The sweeper records ``GameExpired`` (reason ``idle``) for
    members with nothing written for ``TABLETOP_IDLE_GAME_TTL_S``, and re-scores the
    others by their last event.
``<p>livegames:{<client>}`` -- sorted set with a TTL
    The games one client created that have not ended, open or running (member = id,
    score = creation time), and ``r:<game id>`` for each creation in flight; counted
    against ``TABLETOP_MAX_UNFINISHED_GAMES_PER_CLIENT`` at creation like the open-games
    set, members neither in ``games:open`` nor running without an end dropped then.
    Expires a day after the open-game and idle-game TTLs together, renewed by each
    creation.

Stream hubs (``service/http/waits.py``, one per API worker process, for the account
notice streams; game streams follow the live channels above):

``<p>hub:<uuid>`` -- stream with a TTL
    The hub's private wake stream: a new waiter adds an entry so the hub's blocking
    XREAD returns and includes its game. At most 8 entries; expires an hour after its
    last wake-up, so a hub that died leaves nothing behind.

RQ keeps its own keys under ``rq:`` (its queue, job hashes ``rq:job:bot-...``, registries)
on its own Redis, ``TABLETOP_QUEUE_REDIS_URL`` (default: the store's; required to be a
plain Redis when the store is a cluster: RQ's transactions span slots). No key above is
used in a transaction with RQ's, so all of them stay on the store, cluster or not;
each deployment needs its own ``TABLETOP_QUEUE_NAME`` when several share a database.

Projections (``events/projections``; built by ``events/projections/keys.py``, the
feed key by ``events/redis_adapter/feed.py``). All derived from the streams: ``tabletop
projections rebuild`` recreates them.

``<p>feed:{<shard>}`` -- stream, one per shard 0..N-1 (``TABLETOP_FEED_SHARDS``, default 4)
    Fields ``g`` = game id, ``v`` = version: "this game reached this version".
    Shard = CRC-32 of the game id mod N. XADDed on a standalone Redis by
    ``scripts.APPEND`` itself (its KEYS[5]: atomic with the append), on a cluster by
    ``events.redis_adapter.feed.publish`` after each append (see
    ``events.redis_adapter.feed``), capped near 100 000
    entries; read through the consumer group ``projector`` by ``workers.projector``.
``<p>game:{<id>}:view`` -- hash (the game's hash tag: same slot as its stream)
    ``v`` = checkpoint (last version applied), ``game``, ``rules``, ``status``,
    ``seats``, ``spectator`` and ``seat:<n>`` (view JSON), ``scores``, ``result``
    (JSON or null), ``state`` (the encoded table the next update folds on; holds
    hidden facts, never served). Written only by the projection scripts
    ``APPLY_GAME`` (if ``v`` is still the update's start) and ``REPLACE_GAME``.
``<p>game:{<id>}:summary`` -- hash
    The lobby's summary: ``game``, ``status``, ``created``, ``seats`` (JSON list of
    ``{name, bot}`` or null), ``options`` (JSON), ``version``. Written with the view,
    in the same script.
``<p>lobby:{lobby}:<status>:<type>`` -- sorted set (all lobby keys share the tag ``{lobby}``)
    Member = game id, score = creation time in microseconds since the epoch.
    ``<status>`` is open, running, finished or ``all``; ``<type>`` a game name or
    ``all``. A game is in exactly the sets of its status and type. Written only by
    the ``SYNC_LOBBY`` script.
``<p>lobby:{lobby}:synced`` -- hash
    Game id -> rank of the status its lobby sets show (1 open, 2 running, 3
    finished); the script refuses to lower it (statuses only move forward). A rank
    below the read model's status tells the updater and reconciliation that the
    game's cross-slot read models (lobby and totals) are still to be written. The
    lobby is written only on status changes: a few writes per game, not per command.
``<p>player:{<name>}:totals`` -- hash (tag = the name, percent-encoded)
    ``games``, ``wins``, ``points`` over the finished games of the guests and bots who
    sat under exactly this name.
``<p>player:{<name>}:counted`` -- set
    Ids of the games already added to the totals; ``COUNT_FINISHED`` adds a game
    to both keys at once, only if it was not in this set.
``<p>player:{acct:<name>}:totals`` and ``...:counted`` -- the same for a registered
    player's own seats (``acct:`` never begins a percent-encoded name).
``<p>projector:totals-by-account`` -- string
    Set once the projector counted the registered players' earlier games by account.

Accounts (``events/accounts/keys.py`` builds them; ``service/accounts/store.py`` and the
projector's ``events/projections/notices.py`` write them). ``<id>`` is the SHA-256 of the
name's confusable skeleton (``events/accounts/names.py``): no client-chosen text ever
enters a key, and all keys of one account share its slot.

``<p>account:{<id>}`` -- string
    JSON ``{"name", "key_hash", "created"}`` (and ``"rotated"`` once the key was
    replaced): the registered name and the SHA-256 of its player key. SET NX at
    registration; replaced only by a key rotation (compare-and-set).
``<p>name:{<key>}`` -- string
    The account id that reserved look-alike key ``<key>`` of its name
    (``events/accounts/reservations.py``); ``<p>accounts:reservations`` marks that the
    accounts from before reservations were reserved.
``<p>accounts:registering`` -- string, ``PX 5000``
    The registrations' turn: the token of the registration that holds it.
``<p>account:{<id>}:games`` -- sorted set
    Game id -> µs time the account took its seat there (written before the seat's append).
``<p>account:{<id>}:notices`` -- stream, ``MAXLEN ~ 10000``
    The player stream: entry ids ``<n>-0``, n = 1, 2, 3 ...; field ``n`` = notice JSON.
``<p>account:{<id>}:last`` -- hash
    Game id -> the last notice about it; ``<game id>:m`` -> "<version> <signature>" (what
    the notice script compares); ``:seq`` -> the last notice number.

Turn clocks (``service/app/clock_index.py``):

``<p>clocks:due`` -- sorted set
    Every live game with a turn clock, scored by the Unix ms at which the sweeper must
    look at it next: the earliest deadline of a seat to act, 0 for a recorded timeout
    whose decision is owed (or a finished game whose seed is not revealed yet), a
    minute ahead for a game still open or waiting on a bot. Written by the notifier
    after every append of such a game; the sweeper takes the due ones with one
    ZRANGEBYSCORE. Each append moves the score only after it is stored, so a lost
    update costs an early look, not a missed timeout -- except where the game had no
    deadline (open, or a bot to act): then the next person's deadline waits for the
    minute's recheck at worst.

The HTTP API (``service/http/ratelimit.py``):

``<p>ratelimit:{<bucket>}:<minute>`` -- string (a counter) with a TTL of two minutes
    Requests of one client in one minute (``<minute>`` = Unix time // 60).
    ``<bucket>`` is a *verified* identity: ``seat:<game>:<seat>`` (a seat token that
    was checked against its seat), ``player:<account id>`` (a player key this process
    verified), ``admin`` (the admin token), else ``ip:`` + the
    client address; the tag keeps both minutes of a bucket in one slot.
``<p>ratelimit:<kind>:{<bucket>}:<minute>`` -- the same, for an expensive operation
    (``<kind>`` = ``create``, ``verify``, ``replay`` or ``ticket``); ``<bucket>`` is
    ``ip:<address>`` or ``admin``, and a request may count several units (a strong-bot seat weighs more).
    Both: INCRBY + EXPIRE per lease (see ``ratelimit``), the previous minute read in
    the same pipeline (a sliding-window estimate). Disposable: losing them only
    resets the limits.

Stream tickets (``service/app/stream_tickets.py``):

``<p>ticket:{<game id>}:<sha256 hex of the ticket>`` -- string with a TTL
    ``{"viewer": <seat> | "admin"}``: a ticket that opens the game's event stream once
    as that viewer. SET with ``EX`` = ``TABLETOP_STREAM_TICKET_TTL_S`` on issue, taken
    with GETDEL when the stream opens. Only the hash names it: a dump holds no ticket,
    and no client chooses any part of the name but through SHA-256.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""Allowed game ids: URL-safe, no hash-tag braces, no glob characters."""


def check_prefix(prefix: str) -> str:
    """``prefix`` unchanged, or ValueError if it would break the hash tag."""
    if "{" in prefix or "}" in prefix:
        raise ValueError(f"a key prefix must not contain braces: {prefix!r}")
    return prefix


def check_game_id(game_id: str) -> str:
    """``game_id`` unchanged, or ValueError if it is not a valid game id."""
    if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id):
        raise ValueError(f"invalid game id {game_id!r}")
    return game_id


BOTS_WAITING = "bots:waiting"
"""Name (under the prefix) of the sorted set of games waiting on a bot; see above."""
CLOCKS_DUE = "clocks:due"
"""Name (under the prefix) of the sorted set of clocked games by next deadline; see above."""
SWEEPER_ALIVE = "sweeper:alive"
"""Name (under the prefix) of the sweeper's heartbeat; see above."""
WORKERS = "workers"
"""Name (under the prefix) of the index of bot workers; see above."""
WORKER_ALIVE = "worker:alive:"
"""Name (under the prefix, before the worker's name) of a bot worker's heartbeat; see above."""
OPEN_GAMES = "games:open"
"""Name (under the prefix) of the index of open games; see above."""
RUNNING_GAMES = "games:running"
"""Name (under the prefix) of the index of running games; see above."""


def client_open_games(prefix: str, client_id: str) -> str:
    """The set of open games ``client_id`` created (its own hash tag; braces refused)."""
    if "{" in client_id or "}" in client_id:
        raise ValueError(f"a client id must not contain braces: {client_id!r}")
    return f"{check_prefix(prefix)}opengames:{{{client_id}}}"


def client_live_games(prefix: str, client_id: str) -> str:
    """The set of unfinished games ``client_id`` created (its own hash tag; braces refused)."""
    if "{" in client_id or "}" in client_id:
        raise ValueError(f"a client id must not contain braces: {client_id!r}")
    return f"{check_prefix(prefix)}livegames:{{{client_id}}}"


def prefixed(prefix: str, name: str) -> str:
    """A non-game key (e.g. a projection's index) under ``prefix``."""
    return check_prefix(prefix) + name


@dataclass(frozen=True, slots=True)
class GameKeys:
    """The keys of one game, all sharing the hash tag ``{<game id>}``."""

    events: str
    head: str
    idempotency: str
    seed: str
    snapshot: str
    verification: str
    live: str
    """Not a key: the pub/sub channel ``scripts.APPEND`` publishes the game's new events on."""

    @classmethod
    def of(cls, prefix: str, game_id: str) -> GameKeys:
        """The keys of ``game_id``; ValueError for an invalid id or prefix."""
        base = f"{check_prefix(prefix)}game:{{{check_game_id(game_id)}}}:"
        return cls(
            events=base + "events",
            head=base + "head",
            idempotency=base + "idem",
            seed=base + "seed",
            snapshot=base + "snapshot",
            verification=base + "verification",
            live=base + "live",
        )


def worker_alive_key(prefix: str, worker_name: str) -> str:
    """The heartbeat key of bot worker ``worker_name`` (see above)."""
    return f"{check_prefix(prefix)}{WORKER_ALIVE}{worker_name}"
