"""Turn clocks: how long a seat may take over each decision, as a pure fold of event times.

Only people's seats have a clock (bots are bounded by their budget). A game created
with a clock (``GameCreated.data.clock``, see :func:`check_clock`) gives every
person's seat ``per_decision_ms`` for each decision plus a ``reserve_ms`` for the whole
game: time a decision takes beyond ``per_decision_ms`` is drawn from the reserve. A
seat's **deadline** is ``since + per_decision_ms + reserve_left``, where ``since`` is the
time of the latest event after which the seat had to act.

The fold (:func:`tick`) runs once per stored event, with that event's time (envelope
``time``, truncated to milliseconds): every seat that was to act before the event is
charged ``max(0, elapsed - per_decision_ms)`` from its reserve, and every seat to act
after it starts a fresh decision at the event's time. Every event of one batch carries
the same time, so a batch costs one charge. (Both games have one seat to act at a
time; in a game with simultaneous decisions another seat's move would restart a seat's
decision -- never an earlier timeout than the rules promise, only a later one. A
Schlitzohr seat that resigns out of turn, ``engine.resign``, does the same to the active
seat: once per seat that leaves, and only ever later.)

Nothing here reads a clock: times come in as the envelopes' text. ``pending`` is the
seat whose ``TurnTimedOut`` was recorded and whose decision the policy still owes (the
next engine event clears it).

Failure modes: :func:`check_clock` raises RuleViolation ``invalid_clock`` (stable code)
for anything but a well-formed clock; :func:`time_ms` raises ValueError for a time that
is not the envelope's format.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import RuleViolation

INVALID_CLOCK = "invalid_clock"
"""Rule-violation code of a bad ``clock`` at game creation (stable, part of the API)."""

TIMED_OUT = "turn_timed_out"
"""Rule-violation code of a command for a decision whose timeout is already recorded."""

FORFEIT = "forfeit"
BOT_POLICIES = ("bot:random", "bot:greedy")
"""Bot levels that may decide for a timed-out seat: both are pure functions of the seat's
view and a seeded random source, so verification re-runs them exactly. (The strong bot's
search is cut by wall-clock time: it could not be re-run bit for bit.)"""
POLICIES = (*BOT_POLICIES, FORFEIT)

MIN_PER_DECISION_S, MAX_PER_DECISION_S = 1, 7 * 24 * 3600
MAX_RESERVE_S = 7 * 24 * 3600
CLOCK_FIELDS = frozenset({"per_decision_s", "reserve_s", "policy"})


@dataclass(frozen=True, slots=True)
class ClockState:
    """A game's clock: its settings and where each seat stands (times in Unix ms)."""

    per_decision_ms: int
    policy: str
    reserve_ms: int
    reserve_left: tuple[int, ...]
    since: tuple[int | None, ...]
    pending: int | None = None

    def deadline_ms(self, seat: int) -> int | None:
        """When ``seat`` times out (None: it is not to act, or its timeout is recorded)."""
        since = self.since[seat]
        if since is None or self.pending == seat:
            return None
        return since + self.per_decision_ms + self.reserve_left[seat]

    def deadlines(self) -> dict[int, int]:
        """Every seat to act with its deadline (ms), by seat."""
        out = {}
        for seat in range(len(self.since)):
            deadline = self.deadline_ms(seat)
            if deadline is not None:
                out[seat] = deadline
        return out

    def due(self, now_ms: int) -> int | None:
        """The first seat whose deadline has passed at ``now_ms``, if any."""
        for seat, deadline in sorted(self.deadlines().items()):
            if deadline <= now_ms:
                return seat
        return None

    def settings_json(self) -> dict[str, Any]:
        """The clock as ``GameCreated.data.clock`` holds it."""
        return {
            "per_decision_s": self.per_decision_ms // 1000,
            "reserve_s": self.reserve_ms // 1000,
            "policy": self.policy,
        }


def check_clock(raw: Any) -> dict[str, Any] | None:
    """``raw`` (the ``clock`` of a game creation; None: no clock) as stored, complete:
    ``{"per_decision_s": int 1..604800, "reserve_s": int 0..604800 (default 0),
    "policy": "bot:random" | "bot:greedy" | "forfeit"}``; RuleViolation ``invalid_clock``
    (``details.field`` names what is wrong) otherwise. Unknown fields are refused."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise _bad("clock", "a clock is an object")
    unknown = sorted(set(raw) - CLOCK_FIELDS)
    if unknown:
        raise _bad(unknown[0], f"unknown clock field {unknown[0]!r}")
    per = raw.get("per_decision_s")
    if not _int_in(per, MIN_PER_DECISION_S, MAX_PER_DECISION_S):
        raise _bad("per_decision_s", f"per_decision_s is an integer {MIN_PER_DECISION_S}..{MAX_PER_DECISION_S}")
    reserve = raw.get("reserve_s", 0)
    if not _int_in(reserve, 0, MAX_RESERVE_S):
        raise _bad("reserve_s", f"reserve_s is an integer 0..{MAX_RESERVE_S}")
    policy = raw.get("policy")
    if policy not in POLICIES:
        raise _bad("policy", f"policy is one of {', '.join(POLICIES)}")
    return {"per_decision_s": per, "reserve_s": reserve, "policy": policy}


def settings_of(clock: ClockState) -> dict[str, Any]:
    """The settings ``clock`` was started from, as :func:`check_clock` gives them (a
    rematch's clock is its finished game's)."""
    return {"per_decision_s": clock.per_decision_ms // 1000, "reserve_s": clock.reserve_ms // 1000, "policy": clock.policy}


def _int_in(value: Any, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


def _bad(field: str, message: str) -> RuleViolation:
    return RuleViolation(INVALID_CLOCK, message, {"field": field, "policies": list(POLICIES)})


def start(settings: Mapping[str, Any], seats: int) -> ClockState:
    """The clock of a new game of ``seats`` seats (``settings`` as :func:`check_clock` gives)."""
    reserve = settings["reserve_s"] * 1000
    return ClockState(
        settings["per_decision_s"] * 1000, settings["policy"], reserve, (reserve,) * seats, (None,) * seats
    )


def tick(clock: ClockState, acting_after: Iterable[int], now_ms: int, engine_event: bool) -> ClockState:
    """The clock after an event stored at ``now_ms`` after which ``acting_after`` must act
    (see the module docstring). ``engine_event``: the event came from the rules (it ends a
    pending timeout: the policy's decision was made)."""
    reserve = list(clock.reserve_left)
    since: list[int | None] = [None] * len(clock.since)
    for seat, began in enumerate(clock.since):
        if began is not None:
            over = now_ms - began - clock.per_decision_ms
            if over > 0:
                reserve[seat] = max(0, reserve[seat] - over)
    for seat in acting_after:
        since[seat] = now_ms
    pending = None if engine_event else clock.pending
    return ClockState(clock.per_decision_ms, clock.policy, clock.reserve_ms, tuple(reserve), tuple(since), pending)


def timed_out(clock: ClockState, seat: int) -> ClockState:
    """The clock once ``seat``'s ``TurnTimedOut`` is recorded (folded after :func:`tick`)."""
    return ClockState(
        clock.per_decision_ms, clock.policy, clock.reserve_ms, clock.reserve_left, clock.since, seat
    )


_DAYS_BEFORE_MONTH = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)


def time_ms(text: str) -> int:
    """Unix milliseconds of an envelope time (``2025-01-31T12:00:00.123456Z``); ValueError
    otherwise. Computed by hand: the engine imports no clock module (not even
    ``datetime``), and this is all it needs of one."""
    if len(text) < 20 or text[4] != "-" or text[10] != "T" or not text.endswith("Z"):
        raise ValueError(f"not an envelope time: {text!r}")
    year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
    hour, minute, second = int(text[11:13]), int(text[14:16]), int(text[17:19])
    fraction = text[20:-1] if text[19] == "." else ""
    millis = int((fraction + "000")[:3]) if fraction else 0
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    y = year - 1
    days = 365 * (y - 1969) + (y // 4 - 1969 // 4) - (y // 100 - 1969 // 100) + (y // 400 - 1969 // 400)
    days += _DAYS_BEFORE_MONTH[month - 1] + (1 if leap and month > 2 else 0) + day - 1
    return ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
