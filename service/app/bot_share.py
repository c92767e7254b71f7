"""Each client's share of the bot workers: however many bot games one client creates,
its bots use at most ``bot_share`` worker-seconds per second once a burst is spent.

Why: bot turns wait in one FIFO queue per cost (``service.app.notify``), a game with one
turn queued at a time, so the workers are shared per *game*. One client (one address,
within the creation limit of 30 games a minute) could create all-bot games faster than
two workers play them -- a random Schlitzohr game costs about 4 worker-seconds -- and
every other game's bots then waited behind a backlog that only grew. With 25 such games
another client's bot turns took 182 ms (p50) instead of 13; with the share, 13.2
(``bench/bot_share_bench.py``).

How: a game created by a client with a bot seat or a turn clock records its creator
(``<p>game:{<id>}:botowner``, read by the notifier in the pipeline it already sends).
Each bot turn of that game is charged to the creator's bucket before it is queued: its
expected cost (the bot's floor or think time, or a strong bot's whole budget, plus
:data:`TURN_OVERHEAD_S`) divided by the share is how far it moves the bucket's clock
(GCRA: "generic cell rate algorithm", one timestamp per client). A turn within the burst
is queued at once; a later one is *scheduled* for when the client's share has paid for
it, so it waits in RQ's scheduled registry, not in the queue other clients' turns
pass through. Workers move due scheduled jobs to their queue every second
(``workers.rq_worker.Duties``). The sweeper charges the decisions it makes for timed-out
seats the same way (:meth:`BotShare.game_delay_s`): one client's idle clocked games
would otherwise fill its passes and make every clock late; a timeout beyond the share is
looked at again when it is paid for.

Why not RQ's own ``RateLimit`` (a concurrency cap per key): a slot is held by its job
until RQ releases it, and a job whose worker was killed stays "started" -- its slot
held -- until RQ's own cleanup, which our sweeper's recovery (``workers.sweeper``) would
have to take part in. A timestamp per client holds nothing: it only ever lapses.

Guarantees and limits: a client's bot turns are never dropped, only deferred; a
deferral never depends on a hidden fact (only on the bots' levels and the client's other
games). Games an operator creates, and games created before this existed, are not
charged. A client that spreads over many addresses gets a share per address, as with
every per-address limit (a proxy or firewall in front is the defence). Failure modes:
the charge is one script on RQ's Redis; if it fails, the notifier's error handling
applies (the sweeper re-enqueues the turn).
"""

from __future__ import annotations

from typing import Any

from events.redis_adapter.keys import prefixed
from events.redis_adapter.scripts import Script
from service.settings import Settings

TURN_OVERHEAD_S = 0.01
"""Worker time of a bot turn beyond its decision: taking the job, reading the view,
appending (a cheap turn's gap before its event is about 17 ms with the 10 ms floor,
``bench/bot_timing_bench.py``)."""

OWNER_TTL_S = 7 * 24 * 3600
"""A game's creator record lapses after a week: a game still running then is no longer
charged (only people can drive a game that long: bots play within minutes)."""

_CHARGE = """
-- Charge one turn to a client's bucket (GCRA) and say how long it must wait.
-- KEYS[1] = the client's bucket (the time its share has paid up to, in seconds);
-- ARGV[1] = the turn's cost in wall seconds at the client's share, ARGV[2] = the burst
-- in wall seconds, ARGV[3] = how long an idle bucket outlives its paid-up time (by
-- then it is as good as full, so it may go). Returns the delay in microseconds.
-- Redis' own clock: every process charging a client agrees on "now".
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local paid = tonumber(redis.call('GET', KEYS[1]) or '0')
if paid < now then paid = now end
local delay = paid - tonumber(ARGV[2]) - now
if delay < 0 then delay = 0 end
paid = paid + tonumber(ARGV[1])
redis.call('SET', KEYS[1], string.format('%.6f', paid), 'EX', math.ceil(paid - now + tonumber(ARGV[3])))
return math.floor(delay * 1e6)
"""


def owner_key(prefix: str, game_id: str) -> str:
    """``<p>game:{<id>}:botowner``: the client whose share a game's bot turns use."""
    return f"{prefixed(prefix, 'game:')}{{{game_id}}}:botowner"


def bucket_key(prefix: str, client: str) -> str:
    """``<p>botshare:<client>``: the time up to which the client's share is spent."""
    return prefixed(prefix, "botshare:") + client


def turn_cost_s(strong: bool, settings: Settings) -> float:
    """Expected worker time of one bot turn: a strong bot's whole budget, else the floor
    (or the think time, if longer); plus :data:`TURN_OVERHEAD_S`."""
    if strong:
        return settings.bot_budget_s + TURN_OVERHEAD_S
    return max(settings.bot_floor_ms, settings.bot_think_ms) / 1000 + TURN_OVERHEAD_S


class BotShare:
    """The buckets of every client, on RQ's Redis (a plain Redis; one key per script).
    Thread-safe (a script call is one command)."""

    def __init__(self, client: Any, prefix: str, settings: Settings) -> None:
        self._prefix = prefix
        self._settings = settings
        self._charge = Script(client, _CHARGE)

    @property
    def on(self) -> bool:
        """Whether turns are charged at all (``bot_share`` > 0)."""
        return self._settings.bot_share > 0

    def game_delay_s(self, store: Any, game_id: str) -> float:
        """Charge one cheap decision made for ``game_id`` (a timed-out seat's, which the
        sweeper makes itself) to the game's creator, read from ``store`` (the store's
        Redis); 0 for a game without a recorded creator. Raises what Redis raises."""
        owner = store.get(owner_key(self._prefix, game_id))
        return 0.0 if owner is None else self.delay_s(owner, strong=False)

    def delay_s(self, owner: str | bytes, strong: bool) -> float:
        """Charge one bot turn (of a strong bot if ``strong``) to ``owner`` (as stored in a
        game's creator record, or as text); the seconds it must wait before it is queued
        (0: at once). Raises what Redis raises."""
        client = owner.decode() if isinstance(owner, bytes) else owner
        share = self._settings.bot_share
        cost = turn_cost_s(strong, self._settings) / share
        burst = self._settings.bot_burst_s / share
        idle = int(burst) + 1
        delay_us = self._charge([bucket_key(self._prefix, client)], [cost, burst, idle])
        return int(delay_us) / 1e6
