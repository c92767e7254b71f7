"""The bot job: play one bot turn through the same command path as HTTP.

``play_bot_turn(game_id, version, seat)`` is enqueued by the notifier
(``service/app/notify.py``) and re-enqueued by the sweeper. It is safe to run any
number of times, late, or concurrently:

- it acts only if the game is still at ``version`` and ``seat`` must act there;
- it submits with ``expected_version=version`` and the idempotency key
  ``<version>`` (stored as ``bot:<seat>:<version>``, out of every client's reach), so
  of all runs of one turn at most one writes;
  the others get the first outcome back, or a conflict, which ends them quietly.

The bot sees what a person in that seat would: the seat's view and its legal
commands (``app.queries``), never the state. Its random source is
``SeededRandom(HMAC(game seed, "bot|<game>|<version>|<seat>"), "bot")``: derived
from the game's secret seed, so other players cannot predict it while the game runs
and an auditor can recompute it once the seed is revealed.

Failure modes: Redis errors propagate, and RQ retries the job (``BOT_RETRY_INTERVALS``).
A bot that proposes an illegal command is a bug; it is logged and a uniformly random
legal command is played instead, so a bot bug never stalls a person's game.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import time
from typing import Any

from engine import ai
from engine.errors import RuleViolation
from engine.model import JSON
from engine.rng import SeededRandom
from service.app.errors import GameNotFound, IdempotencyMismatch, StaleVersion
from service.app.notify import EXPENSIVE_LEVELS, bot_idempotency_key
from service.app.pacing import wait_out
from service.bootstrap import Services, build
from service.settings import Settings

log = logging.getLogger(__name__)

_services: Services | None = None


def services() -> Services:
    """This process's services, built on first use (one Redis pool, one table cache)."""
    global _services
    if _services is None:
        _services = build()
    return _services


def use_services(built: Services | None) -> None:
    """Install the services jobs use (the worker builds them before it starts)."""
    global _services
    _services = built


def bot_rng(seed_hex: str, game_id: str, version: int, seat: int) -> SeededRandom:
    """The bot's random source for one turn (see the module docstring)."""
    label = f"bot|{game_id}|{version}|{seat}".encode()
    return SeededRandom(hmac.new(bytes.fromhex(seed_hex), label, hashlib.sha256).digest(), "bot")


def play_bot_turn(game_id: str, version: int, seat: int) -> str:
    """Play ``seat``'s turn at ``version`` if it is still due; returns what happened
    (``played``, ``stale``, ``not_due``, ``gone``) for RQ's job result. ``played``
    includes a repeat run answered from the idempotency record: nothing new written."""
    svc = services()
    app = svc.app
    # The decision's time runs from here: loading the legal commands costs more the
    # more a hand allows, so the floor covers it too (decision_time_s).
    started = time.monotonic()
    try:
        document = app.queries.view(game_id, seat)
        bot = document["seats"][seat]["bot"] if 0 <= seat < len(document["seats"]) else None
        if document["version"] != version or bot is None or str(seat) not in document["to_act"]:
            return "not_due"  # a late or duplicate job: the game moved on
        legal = app.queries.legal(game_id, seat)
        if legal["version"] != version or not legal["commands"]:
            return "not_due"
        rng = bot_rng(app.seed(game_id), game_id, version, seat)
        command = choose_command(
            document["game"], bot, document["state"], legal["commands"], rng, svc.settings, started
        )
        wait_out(started, decision_time_s(bot, svc.settings))
        return _submit(svc, game_id, version, seat, command, legal["commands"], rng)
    except GameNotFound:
        return "gone"


def _submit(
    svc: Services, game_id: str, version: int, seat: int, command: JSON, legal: list[JSON], rng: Any
) -> str:
    key = bot_idempotency_key(game_id, version, seat)
    try:
        outcome = svc.app.submit_as_bot(game_id, seat, command, version, key)
    except (StaleVersion, IdempotencyMismatch):
        # Another run of this turn got there first (with a command chosen under
        # another time budget), or the game moved on: nothing left to do.
        return "stale"
    except RuleViolation as violation:
        log.error(
            "bot in game %s seat %s proposed %s: %s; playing a random legal command",
            game_id,
            seat,
            command,
            violation.code,
        )
        fallback = random_command(legal, rng)
        try:
            outcome = svc.app.submit_as_bot(game_id, seat, fallback, version, key)
        except (StaleVersion, IdempotencyMismatch):
            return "stale"
    return "played" if outcome.get("version", 0) > version else "stale"


SEARCH_SHARE = 0.9
"""Share of the budget a strong bot's search may use, counted from the turn's start. The
search stops at its deadline only after the world it is playing (up to some tens of ms,
more on a loaded machine); the rest of the budget absorbs that, so the decision still
ends inside the budget it is padded to and its end tells nothing of that world."""


def choose_command(
    game: str,
    level: str,
    view: JSON,
    legal: list[JSON],
    rng: SeededRandom,
    settings: Settings,
    started: float,
) -> JSON:
    """The bot's command: ``engine.ai.choose``, its search cut at SEARCH_SHARE of
    ``settings.bot_budget_s`` after ``started`` (the turn's ``time.monotonic()``).

    The bots are pure computations, so any exception from them is a bug: it is logged
    and a random legal command is played, rather than failing the job -- retries
    would fail the same way, and the game would wait for ever.
    """
    deadline = started + SEARCH_SHARE * settings.bot_budget_s
    try:
        return ai.choose(
            game, level, view, legal, rng, deadline=lambda: time.monotonic() >= deadline
        )
    except Exception:
        log.exception("the %s bot of %s failed; playing a random legal command", level, game)
        return random_command(legal, rng)


def random_command(legal: list[JSON], rng: SeededRandom) -> JSON:
    """A uniformly random legal command (the fallback when a bot errs)."""
    return legal[rng.randbelow(len(legal), "fallback")]


def decision_time_s(level: str, settings: Settings) -> float:
    """The least time between a bot turn's start (reading the seat's view) and its
    submission.

    How long a bot takes to decide depends on its position, hidden facts included (its
    hand, the colours it inspected), and every event carries its time to the
    microsecond, so a bot that answered as soon as it had decided would let the other
    players time its secrets (docs/security.md). So every turn takes at least the floor
    (``TABLETOP_BOT_FLOOR_MS``, far above what a cheap bot needs: without it an
    Abluxxen greedy bot's time tracked its hand's choices, r = 0.18 over 487 plays, from
    the events' times alone; ``bench/bot_timing_bench.py``), and a strong bot its whole budget
    (``TABLETOP_BOT_BUDGET_S``), which its search's deadline keeps it within. The think
    delay (``TABLETOP_BOT_THINK_MS``) only ever lengthens this.
    """
    floor = max(settings.bot_think_ms, settings.bot_floor_ms) / 1000
    if level in EXPENSIVE_LEVELS:
        floor = max(floor, settings.bot_budget_s)
    return floor
