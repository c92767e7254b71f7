"""Snapshot + tail equals a full replay, over random games of every registered type.

Each game is played by the engine's random playout, stored command by command the
way the application layer does it (``GameCreated`` + setup via ``create``, then
one append per command), and loaded with a small snapshot interval at every step.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.game import replay
from engine.model import Event
from engine.playout import play
from engine.registry import game_names, get_game
from events.model import records
from events.model.envelope import SYSTEM, seat_actor
from events.model.errors import GameNotFinished, GameNotFound, InvalidEvent
from events.model.port import GameRef, Snapshot
from events.model.redaction import SPECTATOR
from events.redis_adapter.store import RedisEventStore
from events.state.loading import load_state
from events.state.snapshots import default_codec, snapshot_of

pytestmark = pytest.mark.store


def store_game(
    store: RedisEventStore, name: str, players: int, seed: str, game_id: str, every: int
) -> tuple[Any, list[Event], Any]:
    """Play and store one game, checking load_state at each step; the playout's
    final state, every engine event, and the state loaded at the end."""
    game = get_game(name)
    ref = GameRef(game_id, name)
    steps: list[tuple[int, dict[str, Any], list[Event]]] = []
    run = play(
        game,
        players,
        bytes.fromhex(seed),
        on_step=lambda s, seat, c, new: steps.append((seat, c, new)),
    )
    setup = records.setup_events(game, game.validate_options(None), players, seed)
    assert (
        setup[1:] == run.events[: len(setup) - 1]
    )  # the store's setup draws what the playout drew
    version = store.create(ref, setup, seed, actor=SYSTEM).last_version
    engine_events = list(setup[1:])
    state = replay(game, engine_events)
    for seat, command, new in steps:
        version = store.append(
            ref, new, version, actor=seat_actor(seat), command=dict(command)
        ).last_version
        engine_events.extend(new)
        state = replay(game, new, state)  # the full replay, one step further
        loaded = load_state(store, game, game_id, snapshot_every=every)
        assert (loaded.version, loaded.state) == (version, state)
    return run.state, engine_events, load_state(store, game, game_id, snapshot_every=every).state


@pytest.mark.parametrize("name", game_names())
@settings(
    max_examples=2, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_snapshot_plus_tail_equals_full_replay(
    store: RedisEventStore, name: str, data: st.DataObject
) -> None:
    game = get_game(name)
    players = data.draw(st.integers(game.min_players, game.max_players), label="players")
    seed = data.draw(st.binary(min_size=32, max_size=32), label="seed").hex()
    every = data.draw(st.integers(3, 40), label="snapshot_every")
    game_id = f"{name}-{seed[:12]}-{every}"
    final, events, loaded = store_game(store, name, players, seed, game_id, every)
    assert loaded == final
    snapshot = store.load_snapshot(game_id)
    assert snapshot is not None and snapshot.rules_version == game.rules_version
    # Version 1 is GameCreated, so the snapshot at version v folds engine events[:v - 1].
    assert default_codec().decode(snapshot.payload) == replay(game, events[: snapshot.version - 1])


def test_stale_or_broken_snapshots_are_ignored(store: RedisEventStore) -> None:
    name, seed = "abluxxen", "11" * 32
    final, events, _ = store_game(store, name, 2, seed, "snap", every=10**6)
    game = get_game(name)
    early = replay(game, events[:5])
    head = store.head("snap").version
    store.save_snapshot("snap", snapshot_of(early, head, "abluxxen/0"))  # other rules version
    assert load_state(store, game, "snap", snapshot_every=10**6).state == final
    store.save_snapshot(
        "snap", Snapshot(head + 1, game.rules_version, '{"$":"dc","c":"os:system","v":{}}')
    )
    assert load_state(store, game, "snap", snapshot_every=10**6).state == final
    with pytest.raises(GameNotFound):
        load_state(store, game, "never-created")


def test_seed_is_revealed_only_after_the_end(store: RedisEventStore) -> None:
    name, seed = "schlitzohr", "22" * 32
    final, events, _ = store_game(store, name, 2, seed, "reveal", every=50)
    assert events[-1].type == "GameEnded" and store.head("reveal").finished
    ref, version = GameRef("reveal", name), store.head("reveal").version
    with pytest.raises(InvalidEvent):
        store.append(ref, [records.seed_revealed("33" * 32)], version, actor=SYSTEM)
    store.append(ref, [records.seed_revealed(store.secret_seed("reveal"))], version, actor=SYSTEM)
    history = store.read_all("reveal", SPECTATOR)
    assert records.commitment(history[-1].data["seed"]) == history[0].data["commitment"]
    assert (
        load_state(store, get_game(name), "reveal").state == final
    )  # SeedRevealed is not for the engine
    assert store.verify("reveal") == version + 1


def test_seed_reveal_before_the_end_is_refused(store: RedisEventStore) -> None:
    game, seed = get_game("schlitzohr"), "44" * 32
    setup = records.setup_events(game, game.validate_options(None), 2, seed)
    store.create(GameRef("early", "schlitzohr"), setup, seed, actor=SYSTEM)
    with pytest.raises(GameNotFinished):
        store.append(
            GameRef("early", "schlitzohr"), [records.seed_revealed(seed)], len(setup), actor=SYSTEM
        )
    for viewer in (0, 1, SPECTATOR):
        assert all(seed not in repr(e) for e in store.read_all("early", viewer))
