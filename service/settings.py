"""Configuration from ``TABLETOP_*`` environment variables, read once at start-up.

Every setting is a field of :class:`Settings` with its default and what it
controls; ``Settings.from_env()`` is the only place that reads the environment.
Tests build ``Settings(...)`` directly.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True, slots=True)
class Settings:
    """Service settings. Env var = ``TABLETOP_`` + the field name in upper case."""

    redis_url: str = "redis://127.0.0.1:6379/0"
    """Where Redis runs (``REDIS_URL`` is accepted too). ``tabletop up`` starts an
    embedded server and sets this when neither is given."""

    queue_redis_url: str = ""
    """The plain Redis that RQ (the bot queues, workers, scheduler) uses; empty = the
    store's ``redis_url``. Required when that is a Redis Cluster (``redis+cluster://``):
    RQ's transactions span keys of several slots, so the event store may be a cluster
    but the queue may not (``service.bootstrap.queue_redis_url``)."""

    key_prefix: str = "tt:"
    """Put in front of every Redis key, so deployments can share a database."""

    admin_token: str = ""
    """Bearer token for operator endpoints and full exports; empty = no admin access."""

    snapshot_every: int = 100
    """Write a state snapshot when the history grew by this many events."""

    rate_limit_per_minute: int = 600
    """Requests per minute allowed per verified identity: a seat (its token checked), the
    admin token, else the client address; 0 = off."""

    create_limit_per_minute: int = 30
    """Game creations per minute per client address, each strong-bot seat weighing
    ``strong_seat_cost`` more (a game never weighs more than the whole limit); 0 = off."""

    strong_seat_cost: int = 4
    """Extra weight of one strong-bot seat in ``create_limit_per_minute``."""

    verify_limit_per_minute: int = 6
    """Verifications per minute per client address of games not verified before (a
    stored report is served without limit beyond the general one); 0 = off."""

    replay_limit_per_minute: int = 60
    """Replays per minute per client address: past-version views (``?at=``) and
    exports; 0 = off."""

    max_body_bytes: int = 16_384
    """Largest accepted request body (413 above)."""

    page_size_max: int = 500
    """Most items one page of a list may hold."""

    long_poll_max_s: float = 30.0
    """Longest a client may wait for a newer version (``wait`` on the view endpoint)."""

    sse_max_s: float = 60.0
    """Longest one event stream (SSE) stays open; clients reconnect with ``Last-Event-ID``."""

    sse_heartbeat_s: float = 15.0
    """Idle time after which an event stream sends a comment line, so proxies keep it open
    and a vanished client is noticed."""

    streams_per_client: int = 16
    """Event streams and long polls one client may hold open at once in one API worker
    process (429 ``too_many_streams`` above; a client is a verified seat, else its
    address); 0 = no cap."""

    streams_per_process: int = 3000
    """Event streams and long polls one API worker process holds at most (503
    ``server_busy`` above), below its connection budget so that commands and health
    probes always find room; 0 = no cap."""

    stream_ticket_ttl_s: int = 30
    """Seconds a stream ticket (``POST /v1/games/{id}/stream-tickets``) stays valid if
    unused; a used one is gone at once."""

    stream_ticket_limit_per_minute: int = 120
    """Stream tickets one client address (the admin: its own bucket) may be issued per
    minute (429 ``ticket_rate_limited`` above): bounds the tickets it keeps in Redis.
    A browser needs one per stream it opens or reopens; 0 = off."""

    cors_origins: str = ""
    """Origins (comma-separated, exact: scheme://host[:port]) whose pages may call the
    API from a browser (CORS); empty = no CORS headers at all (same-origin only)."""

    header_timeout_s: float = 5.0
    """A connection must deliver its request line and headers within this many seconds
    (also the longest idle time between two requests on a kept-alive connection); slower
    clients are disconnected (gevent workers)."""

    worker_timeout_s: int = 30
    """An API worker process silent this long (its event loop blocked, the process
    stopped) is killed and replaced by gunicorn's master (gunicorn's ``timeout``). Its
    heartbeat runs beside the requests (gevent, gthread), so long streams and polls never
    count against it. Its boot counts too (``service.runner.gunicorn_config.pre_fork``
    dates a new worker's heartbeat before the fork)."""

    body_timeout_s: float = 10.0
    """A request body must arrive within this many seconds of the handler starting to
    read it; slower clients get 408 ``request_timeout`` and are disconnected."""

    trusted_proxies: int = 0
    """Reverse proxies in front of the API whose ``X-Forwarded-For`` is trusted (the rate
    limits key clients without a verified token by their IP); 0 = use the peer address."""

    idempotency_ttl_s: int = 86_400
    """Seconds a game's idempotency records are kept once the game has ended (a retry
    after that gets 409 ``version_conflict``); 0 = for ever."""

    open_game_ttl_s: int = 86_400
    """A game whose seats are not all taken this many seconds after its creation is
    expired by the sweeper (``GameExpired``; it leaves the lobby's open list); 0 = never."""

    max_open_games_per_client: int = 20
    """Open games one client (its address, see ``TABLETOP_TRUSTED_PROXIES``) may have at
    once; a further creation answers 429 ``too_many_open_games``; 0 = no cap."""

    max_unfinished_games_per_client: int = 100
    """Games one client may have created that have not ended -- open or running, bots'
    included; a further creation answers 429 ``too_many_unfinished_games``; 0 = no cap.
    Bounds what one address keeps in Redis with games it starts and never plays."""

    idle_game_ttl_s: int = 604_800
    """A running game nobody has written to for this many seconds is expired by the
    sweeper (``GameExpired``, reason ``idle``: over, unscored); 0 = never. A week: far
    beyond a slow move, and it frees the creator's place in the cap above."""

    bot_think_ms: int = 0
    """Pause before a bot submits, so people can follow mixed games."""

    bot_floor_ms: int = 10
    """Least time any bot decision takes before its append -- a bot's turn, from its job
    reading the seat's view; a sweeper pass's timed-out turns, from the pass's start. Cheap bots decide in
    about 0.1-5 ms, and how long depends on their hidden facts (an Abluxxen greedy bot's
    hand: the more sets it can play, the longer); event times are public to the
    microsecond, so without a floor other players could time a bot's hand
    (``bench/bot_timing_bench.py``). 0 = off (tests that need speed only)."""

    bot_stall_s: float = 30.0
    """A game waiting on a bot longer than this is re-enqueued by the sweeper."""

    queue_name: str = "tabletop-bots"
    """The RQ queue random and greedy bot turns go to; strong bots' turns go to
    ``<queue_name>-strong``. Workers serve both, cheap turns first."""

    bot_budget_s: float = 1.0
    """Most time a bot may think about one turn (the strong bot's deadline). Every strong
    decision takes all of it, so its timing reveals nothing about its hidden facts."""

    bot_job_timeout_s: int = 20
    """RQ stops a bot job running longer than this plus the think delay; it is then retried."""

    bot_share: float = 0.5
    """Bot-worker seconds per second the bots of one client's games may use once their
    burst is spent: their further turns are deferred, so however many bot games one
    client creates, other clients' bots keep the rest of the workers
    (``service.app.bot_share``; with ``up``'s two bot workers, a client gets at most a
    quarter). The client is the games' creator (its address); games an operator creates
    are not counted. 0 = no share (every turn is queued at once)."""

    bot_burst_s: float = 10.0
    """Bot-worker seconds a client's bots may use at once before ``bot_share`` applies (a
    whole all-bot game of cheap bots is about 4 s; a strong turn costs its budget: a
    person against three strong bots who takes 3 s a turn is never held back)."""

    archive_url: str = ""
    """Where finished games are archived (``service.app.archiving``): ``sqlite:///<path>``
    or ``postgresql://...``; empty = ``sqlite:///<data dir>/archive.sqlite3`` (data dir =
    ``TABLETOP_DATA_DIR`` or ``.tabletop``)."""

    archive_after_s: float = 172_800.0
    """A finished game whose seed was revealed this many seconds ago moves from Redis to
    the archive on the sweeper's next pass (default two days: after its idempotency
    records expired); 0 = the sweeper archives nothing (``tabletop archive`` still can)."""

    archive_batch: int = 50
    """Most games the sweeper archives in one pass."""

    sweep_interval_s: float = 2.0
    """How often the sweeper looks for bot turns whose job died or stalled (and for open
    games past ``open_game_ttl_s``); with the workers' 5 s heartbeat this bounds how long
    a turn abandoned by a dead worker or a Redis crash waits (``workers/sweeper.py``)."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``environ`` (default ``os.environ``); ValueError on a bad value."""
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for f in fields(cls):
            raw = env.get(f"TABLETOP_{f.name.upper()}")
            if raw is None and f.name == "redis_url":
                raw = env.get("REDIS_URL")
            if raw is None:
                continue
            default = f.default
            convert: Any = type(default)  # every field has a default of the field's type
            try:
                values[f.name] = convert(raw) if not isinstance(default, str) else raw
            except ValueError:
                raise ValueError(f"TABLETOP_{f.name.upper()} must be a {type(default).__name__}, got {raw!r}") from None
        return cls(**values)  # type: ignore[arg-type]
