"""Re-running the rules over a recorded history: every event must come out exactly again.

The walk is greedy, in version order, and mirrors how the application writes
(``service/app``):

1. ``GameCreated`` (system, no command): its rules version must be this engine's and
   its options complete and valid. ``game.setup(options, seats, rng)`` with the
   revealed seed's ``SeededRandom`` then gives k events; versions 2..k+1 must be
   exactly them, written by the system without a command.
2. A table event (``SeatTaken`` ...) is checked against the lobby rules
   (``events.audit.lobby``) and folded.
3. An event with a command and a seat or bot actor starts a batch: the rules re-decide
   ``engine.resign.decide(game, table.state, seat, command, rng)`` (a resignation under
   the table's rule, any other command by ``game.decide``) and the next k recorded events
   must be exactly its k events, all carrying that actor and command.
4. After a ``TurnTimedOut`` (checked by ``events.audit.lobby``) the next batch must be the
   clock policy's decision for that seat, re-made here exactly as the sweeper made it
   (``engine.timeout.policy_decision`` with ``events.model.records.timeout_rng`` of the
   revealed seed): written by ``{"kind": "timeout", "seat": n}`` with the bot's command
   (null for a forfeit). A tampered decision -- another command, other events -- is a
   ``rules`` discrepancy.
5. At the end, the ``GameEnded`` data must equal ``game.result`` of the re-run state.

Any other event (an engine event nobody commanded) is a ``rules`` discrepancy.
Everything is folded with ``engine.table.evolve_table`` -- only events equal to what
the rules produce ever reach ``game.evolve``, so garbage cannot crash the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine import resign
from engine.errors import RuleViolation
from engine.game import Game
from engine.model import JSON, Event
from engine.rng import RandomSource
from engine.table import FINISHED, GAME_ENDED, RUNNING, TABLE_TYPES, Table, evolve_table
from engine.timeout import policy_decision
from events.audit.compare import difference, first_difference
from events.audit.lobby import check_table_event
from events.audit.report import RULES, SCORE, STRUCTURE, Discrepant
from events.model.envelope import SYSTEM, Envelope, timeout_actor
from events.model.records import engine_rng, timeout_rng


@dataclass(frozen=True, slots=True)
class Rerun:
    """A history the rules reproduced: the final table and how many commands it took."""

    table: Table
    commands: int
    result: JSON


def rerun(game: Game[Any], history: Sequence[Envelope], seed: str) -> Rerun:
    """Re-run ``history`` (schema-checked envelopes, ``GameCreated`` first) with the
    revealed ``seed``; Discrepant at the first event the rules do not reproduce."""
    rng = engine_rng(seed, game.rules_version)
    created = history[0]
    setup = _setup_events(game, created, rng)
    table = _fold(game, None, created)
    table, at = _match(game, table, history, 1, setup, (SYSTEM, None), "the setup")
    commands = 0
    while at < len(history):
        envelope = history[at]
        if table.clock is not None and table.clock.pending is not None:
            table, at = _timeout_decision(game, table, history, at, seed, rng)
            commands += 1
        elif envelope.type in TABLE_TYPES:
            check_table_event(table, envelope, last=at == len(history) - 1)
            table, at = _fold(game, table, envelope), at + 1
        else:
            table, at = _command(game, table, history, at, rng)
            commands += 1
    return Rerun(table, commands, _check_result(game, table, history))


def _setup_events(game: Game[Any], created: Envelope, rng: RandomSource) -> list[Event]:
    """The engine's setup for ``GameCreated``'s options and seats (checked first)."""
    data, version = created.data, created.version
    if created.actor != SYSTEM or created.command is not None:
        raise Discrepant(
            version, STRUCTURE, "GameCreated is written by the system, without a command"
        )
    if data["rules_version"] != game.rules_version:
        raise Discrepant(
            version,
            RULES,
            f"the history was written under rules {data['rules_version']!r}; this server"
            f" re-runs {game.rules_version!r} only",
        )
    try:
        options = game.validate_options(data["options"])
        events = game.setup(options, data["seats"], rng)
    except RuleViolation as err:
        raise Discrepant(version, RULES, f"the rules refuse this game: {err}") from None
    if first_difference(options, data["options"]) is not None:
        # The server stores the validated options, defaults filled in.
        raise Discrepant(version, RULES, f"the options {data['options']} are not complete")
    return events


def _command(
    game: Game[Any], table: Table, history: Sequence[Envelope], at: int, rng: RandomSource
) -> tuple[Table, int]:
    """Re-decide the command of ``history[at]`` and match the batch it starts."""
    envelope = history[at]
    version, actor, command = envelope.version, envelope.actor, envelope.command
    if command is None:
        raise Discrepant(version, RULES, f"{envelope.type} is an engine event no command caused")
    seat = envelope.actor_seat
    if actor.get("kind") not in ("seat", "bot") or seat is None:
        raise Discrepant(version, RULES, f"a command sent by {actor}: only seats and bots act")
    if table.status != RUNNING:
        when = "after the game ended" if table.status == FINISHED else "before play started"
        raise Discrepant(version, RULES, f"a command {when}")
    try:
        expected = resign.decide(game, table.state, seat, command, rng)
    except RuleViolation as err:
        raise Discrepant(
            version, RULES, f"the rules refuse command {command} by seat {seat}: {err}"
        ) from None
    return _match(game, table, history, at, expected, (actor, command), f"command {command}")


def _timeout_decision(
    game: Game[Any], table: Table, history: Sequence[Envelope], at: int, seed: str, rng: RandomSource
) -> tuple[Table, int]:
    """Re-make the decision the clock's policy owes after a ``TurnTimedOut`` and match the
    batch at ``history[at]`` against it."""
    assert table.clock is not None and table.clock.pending is not None
    seat, policy = table.clock.pending, table.clock.policy
    envelope = history[at]
    bot = timeout_rng(seed, envelope.game_id, table.version, seat)
    try:
        command, expected = policy_decision(game, table.state, seat, policy, bot, rng)
    except (RuleViolation, ValueError) as err:
        raise Discrepant(envelope.version, RULES, f"the {policy} policy cannot decide for seat {seat}: {err}") from None
    what = f"the {policy} decision for timed-out seat {seat}"
    return _match(game, table, history, at, expected, (timeout_actor(seat), command), what)


def _match(
    game: Game[Any],
    table: Table,
    history: Sequence[Envelope],
    at: int,
    expected: Sequence[Event],
    cause: tuple[JSON, JSON | None],
    what: str,
) -> tuple[Table, int]:
    """Check that ``history[at:]`` starts with ``expected``, written by ``cause``
    (actor, command); fold them. Returns the table and the index after the batch."""
    for offset, event in enumerate(expected):
        if at + offset >= len(history):
            version = history[-1].version + 1
            raise Discrepant(
                version, RULES, f"the history ends inside {what}: {event.type} is missing"
            )
        envelope = history[at + offset]
        if first_difference([envelope.actor, envelope.command], list(cause)) is not None:
            raise Discrepant(
                envelope.version,
                RULES,
                f"{what} gives {len(expected)} events, but this one ({envelope.type}) was written"
                f" by {envelope.actor} for command {envelope.command}",
            )
        found = difference(envelope, event)
        if found is not None:
            raise Discrepant(envelope.version, *found)
        table = _fold(game, table, envelope)
    return table, at + len(expected)


def _check_result(game: Game[Any], table: Table, history: Sequence[Envelope]) -> JSON:
    """The ``GameEnded`` data, once checked against ``game.result`` of the re-run state."""
    ended = [e for e in history if e.type == GAME_ENDED]
    result = game.result(table.state) if table.state is not None else None
    if not ended or result is None or table.status != FINISHED:
        raise Discrepant(history[-1].version, RULES, "the history ends before the game did")
    found = first_difference(ended[-1].data, result.to_json())
    if found is not None:
        path, mine, theirs = found
        raise Discrepant(
            ended[-1].version,
            SCORE,
            f"GameEnded: {path} is {mine} in the history, the rules give {theirs}",
        )
    return result.to_json()


def _fold(game: Game[Any], table: Table | None, envelope: Envelope) -> Table:
    return evolve_table(game, table, envelope.to_event(), envelope.version, envelope.time)
