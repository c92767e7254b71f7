"""Verifying a whole stored history: the one entry point of the audit.

Checks, in this order -- the first that fails is reported, at its first bad version:

1. ``structure``: every item is a stored envelope (``events.audit.history``);
2. ``chain``: versions 1..n, each ``prev_hash`` the previous ``hash``, each ``hash``
   over its own stored form (``events.chain.verify``, before upcasting);
3. ``structure``: the history finished, i.e. ending with ``SeedRevealed`` (a running
   game's verification stops here, before any content is looked at); ``GameCreated``
   first, for a game this server knows; every event of a registered type matching
   its current schema (after upcasting);
4. ``commitment``: sha256 of the revealed seed's bytes is ``GameCreated``'s commitment;
   then ``chain`` again: under the revealed seed every seal-2 event's private part and
   command match their digests (``events.chain.verify.digest_problem``) -- before the seed
   was revealed nobody could check those, nor test a guess against them;
5. ``random_outcome`` / ``rules`` / ``score``: the rules re-run with the revealed seed
   reproduce every event (``events.audit.rerun``).

Later checks are meaningless when an earlier one fails (a re-run with a seed that
does not match its commitment proves nothing), hence the order. Guarantee:
:func:`verify_history` and :func:`verify_lines` return a :class:`Report` for any
input -- they raise nothing for bad input.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from engine.errors import RuleViolation
from engine.game import Game
from engine.registry import get_game
from engine.table import GAME_CREATED, SEED_REVEALED
from events.audit.history import check_shape, flat_errors, parse_lines
from events.audit.report import CHAIN, COMMITMENT, STRUCTURE, Discrepant, Report
from events.audit.rerun import rerun
from events.chain.sealing import CommitKey
from events.chain.verify import digest_problem, first_break
from events.model.envelope import Envelope
from events.model.errors import InvalidEvent, UpcastError
from events.model.records import commitment
from events.model.upcasting import Upcasters, default_upcasters
from events.schemas import SchemaRegistry, default_registry


class StoredTexts(Protocol):
    """Where stored histories come from: ``events.redis_adapter.store.RedisEventStore`` is one."""

    def stored_texts(self, game_id: str) -> list[str]: ...


def verify_stored(source: StoredTexts, game_id: str) -> Report | None:
    """Verify the stored history of ``game_id`` (None if there is none). Safe to show to
    anyone: a running game fails as unfinished before any hidden fact is looked at."""
    texts = source.stored_texts(game_id)
    return verify_lines(texts) if texts else None


def verify_lines(lines: Iterable[str | bytes]) -> Report:
    """Verify a JSON Lines export (see ``events.audit.history``)."""
    try:
        history = parse_lines(lines)  # checks the shape of every line on the way
    except Discrepant as found:
        return Report(None, None, 0, discrepancy=found.discrepancy)
    return _verify(history, shaped=True)


def verify_history(
    history: Sequence[Mapping[str, Any]],
    *,
    registry: SchemaRegistry | None = None,
    upcasters: Upcasters | None = None,
) -> Report:
    """Verify stored envelopes (dicts in their stored form, version order)."""
    return _verify(history, registry=registry, upcasters=upcasters)


def _verify(
    history: Sequence[Mapping[str, Any]],
    *,
    shaped: bool = False,
    registry: SchemaRegistry | None = None,
    upcasters: Upcasters | None = None,
) -> Report:
    game_id, game_name = _names(history)
    try:
        envelopes = _checked_envelopes(history, upcasters or default_upcasters(), shaped)
        _check_finished(envelopes)  # before any content is looked at: see verify_stored
        game = _game_of(envelopes[0])
        _check_schemas(game, envelopes, registry or default_registry())
        seed = _revealed_seed(envelopes)
        _check_digests(history, envelopes[0].game_id, seed)
        outcome = rerun(game, envelopes, seed)
    except Discrepant as found:
        return Report(game_id, game_name, len(history), discrepancy=found.discrepancy)
    return Report(game_id, game_name, len(history), outcome.commands, result=outcome.result)


def load_envelopes(
    history: Sequence[Mapping[str, Any]], upcasters: Upcasters | None = None
) -> list[Envelope]:
    """Envelopes of a stored history at the current schema versions, once its shape and
    hash chain hold (Discrepant otherwise). For replays of files."""
    return _checked_envelopes(history, upcasters or default_upcasters())


def _names(history: Sequence[Any]) -> tuple[str | None, str | None]:
    """The game id and game type the first item claims, if it is that well-formed."""
    first = history[0] if history else None
    if not isinstance(first, Mapping):
        return None, None
    game_id, data = first.get("game_id"), first.get("data")
    game = data.get("game") if isinstance(data, Mapping) else None
    return (game_id if isinstance(game_id, str) else None), (
        game if isinstance(game, str) else None
    )


def _checked_envelopes(
    history: Sequence[Mapping[str, Any]], upcasters: Upcasters, shaped: bool = False
) -> list[Envelope]:
    """Shape (unless already ``shaped``) and chain checked, then upcast (the hash covers
    the stored form)."""
    if not shaped:
        check_shape(history)
    broken = first_break(history[0]["game_id"], enumerate(history, start=1))
    if broken is not None:
        raise Discrepant(broken[0], CHAIN, broken[1])
    out = []
    for version, raw in enumerate(history, start=1):
        try:
            out.append(Envelope.from_stored(upcasters.upcast(dict(raw))))
        except (UpcastError, KeyError, TypeError, ValueError) as exc:
            raise Discrepant(version, STRUCTURE, f"cannot read this event: {exc}") from None
    return out


def _game_of(created: Envelope) -> Game[Any]:
    if created.type != GAME_CREATED:
        raise Discrepant(1, STRUCTURE, f"a history starts with GameCreated, not {created.type}")
    name = created.data.get("game")
    try:
        return get_game(str(name))
    except RuleViolation:
        raise Discrepant(
            1, STRUCTURE, f"GameCreated names no game this server knows: {name!r}"
        ) from None


def _check_schemas(
    game: Game[Any], envelopes: Sequence[Envelope], registry: SchemaRegistry
) -> None:
    for envelope in envelopes:
        try:
            registry.check_metadata(envelope.type, envelope.time, envelope.actor, envelope.command)
            registry.check(game.name, envelope.to_event())
            current = registry.lookup(game.name, envelope.type).version
        except InvalidEvent as err:
            message = f"{envelope.type} does not match its schema: {flat_errors(err.errors)}"
            raise Discrepant(envelope.version, STRUCTURE, message) from None
        if envelope.schema_version != current:
            message = (
                f"{envelope.type} v{envelope.schema_version} is a schema this server cannot read"
            )
            raise Discrepant(envelope.version, STRUCTURE, message)


def _check_digests(history: Sequence[Mapping[str, Any]], game_id: str, seed: str) -> None:
    """Discrepant (chain) at the first seal-2 event whose hidden parts do not match
    their digests under the revealed ``seed`` (already checked against the commitment)."""
    key = CommitKey(seed, game_id)
    for version, raw in enumerate(history, start=1):
        problem = digest_problem(key, raw)
        if problem is not None:
            raise Discrepant(version, CHAIN, problem)


def _check_finished(envelopes: Sequence[Envelope]) -> None:
    last = envelopes[-1]
    if last.type != SEED_REVEALED:
        raise Discrepant(
            last.version + 1,
            STRUCTURE,
            f"the history ends at version {last.version} without SeedRevealed: only a finished"
            " game, whose seed has been revealed, can be verified",
        )


def _revealed_seed(envelopes: Sequence[Envelope]) -> str:
    """The seed of the final ``SeedRevealed``, once checked against the commitment."""
    last = envelopes[-1]
    seed, committed = last.data["seed"], envelopes[0].data["commitment"]
    if commitment(seed) != committed:
        raise Discrepant(
            last.version,
            COMMITMENT,
            f"sha256 of the revealed seed is {commitment(seed)}, but GameCreated commits to"
            f" {committed}",
        )
    return str(seed)
