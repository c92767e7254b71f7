"""Replay: the table at every version equals the live table the game had at that version."""

from __future__ import annotations

import dataclasses

import pytest
from support.audit import live_game, seal_batches, seed_of

from engine.registry import get_game
from engine.table import FINISHED, OPEN, RUNNING
from events.audit.replay import ReplayError, table_at, tables, view_at, view_of
from events.audit.verify import load_envelopes
from events.model.envelope import Envelope
from events.model.redaction import redact

CONFIGS = [("schlitzohr", 2), ("schlitzohr", 4), ("abluxxen", 3), ("abluxxen", 5)]


def _replayable(game: str, players: int, persons: int = 1) -> tuple[list[Envelope], list]:
    live = live_game(game, players, seed_of(f"replay-{game}-{players}"), persons=persons)
    return load_envelopes(seal_batches("r1", live)), live.tables


@pytest.mark.parametrize("game,players", CONFIGS)
def test_the_replayed_table_at_every_version_equals_the_live_one(game: str, players: int) -> None:
    history, live = _replayable(game, players)
    replayed = list(tables(history))
    assert len(replayed) == len(live)
    for version, (mine, theirs) in enumerate(zip(replayed, live, strict=True), start=1):
        assert mine.version == version
        # ``created`` is the writer's clock, which the live fold did not know.
        assert dataclasses.replace(mine, created="") == theirs, f"version {version}"
    assert replayed[-1].status == FINISHED and replayed[-1].seed is not None


@pytest.mark.parametrize("game,players", CONFIGS[:3:2])
def test_the_view_at_a_version_is_the_engines_view_of_the_live_state(
    game: str, players: int
) -> None:
    history, live = _replayable(game, players)
    engine = get_game(game)
    for version in (len(history) // 3, len(history) // 2, len(history)):
        for seat in (None, 0, players - 1):
            view = view_at(history, version, seat)
            assert view["state"] == engine.view(live[version - 1].state, seat)
            assert view["version"] == version
            assert view["status"] == live[version - 1].status


def test_the_commitment_is_in_every_view_from_the_start_and_the_seed_only_at_the_end() -> None:
    history, _ = _replayable("schlitzohr", 3, persons=2)
    committed = history[0].data["commitment"]
    statuses = set()
    for table in tables(history):
        view = view_of(table, None)
        statuses.add(view["status"])
        assert view["commitment"] == committed
        assert (view["seed"] is not None) == (table.version == len(history))
    assert statuses == {OPEN, RUNNING, FINISHED}
    assert view_at(history, 1, None)["state"] is None  # GameCreated alone: nothing set up yet
    assert view_at(history, 2, None)["state"] is not None


def test_table_at_refuses_versions_outside_the_history() -> None:
    history, _ = _replayable("abluxxen", 2)
    for version in (0, len(history) + 1):
        with pytest.raises(ReplayError, match="holds versions"):
            table_at(history, version)


def test_a_redacted_history_cannot_be_replayed() -> None:
    history, _ = _replayable("abluxxen", 2)
    redacted = [redact(e, 0, game_finished=False) for e in history]
    with pytest.raises(ReplayError, match="redacted"):
        table_at(redacted, len(redacted))


def test_an_event_the_rules_cannot_apply_is_a_replay_error() -> None:
    history, _ = _replayable("schlitzohr", 2)
    broken = dataclasses.replace(history[1], data={})
    with pytest.raises(ReplayError) as caught:
        table_at([history[0], broken, *history[2:]], 5)
    assert caught.value.version == 2
