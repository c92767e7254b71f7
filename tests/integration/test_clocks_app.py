"""Turn clocks through the application on real Redis: deadlines from event times, the
sweeper's timeout path (record, then the policy's decision), verification of both
policies, tampering, concurrent and interrupted sweeps, and the due index.

The store's clock is pinned (``ManualClock``), so deadlines are exact and nothing waits.
"""

from __future__ import annotations

import json
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import redis
from support.audit import rehash
from support.clocks import forge_decision
from support.redis import delete_prefix, unique_prefix

from engine.errors import RuleViolation
from engine.registry import game_names, get_game
from events.audit.importing import import_lines
from events.audit.replay import table_at, view_at
from events.audit.verify import load_envelopes, verify_lines
from events.model.clock import TIME_FORMAT
from events.model.redaction import SPECTATOR
from events.redis_adapter.keys import CLOCKS_DUE, prefixed
from events.redis_adapter.store import RedisEventStore
from service.app.application import Application
from service.app.notify import BotQueue, RedisNotifier
from service.app.timeouts import handle_due
from service.settings import Settings

START = datetime(2026, 1, 1, tzinfo=UTC)
START_MS = int(START.timestamp() * 1000)


class ManualClock:
    """The store's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> str:
        return self.now.strftime(TIME_FORMAT)

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    @property
    def ms(self) -> int:
        return int(self.now.timestamp() * 1000)


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def app(redis_client: redis.Redis, key_prefix: str, clock: ManualClock) -> Application:
    bots = BotQueue.of(Settings(), redis_client)
    notifier = RedisNotifier(redis_client, key_prefix, bots, shards=1, clock=lambda: clock.ms / 1000)
    return Application(RedisEventStore(redis_client, prefix=key_prefix, clock=clock), notifier)


def people_game(app: Application, game: str, clock_json: Any) -> tuple[str, list[str]]:
    players = get_game(game).min_players
    game_id = app.create_game(game, {}, [None] * players, clock=clock_json)["game_id"]
    return game_id, [app.join(game_id, f"p{i}").token for i in range(players)]


def verified(app: Application, game_id: str) -> Any:
    report = verify_lines(app.store.stored_texts(game_id))
    assert report.ok, report.discrepancy
    return report


@pytest.mark.parametrize("bad", [
    {"per_decision_s": 0, "policy": "forfeit"},
    {"per_decision_s": 30},
    {"per_decision_s": 30, "policy": "bot:strong"},
    {"per_decision_s": 30, "policy": "forfeit", "extra": 1},
    {"per_decision_s": 1.5, "policy": "forfeit"},
    {"per_decision_s": True, "policy": "forfeit"},
    {"per_decision_s": 30, "reserve_s": -1, "policy": "forfeit"},
    "30s",
])
def test_a_bad_clock_is_refused_with_a_stable_code(app: Application, bad: Any) -> None:
    with pytest.raises(RuleViolation) as refused:
        app.create_game("schlitzohr", {}, [None, None], clock=bad)
    assert refused.value.code == "invalid_clock"


def test_a_game_without_clock_has_no_clock_in_its_events_or_views(app: Application) -> None:
    game_id, _ = people_game(app, "schlitzohr", None)
    created = json.loads(app.store.stored_texts(game_id)[0])
    assert "clock" not in created["data"]
    view = app.queries.view(game_id, None)
    assert view["clock"] is None and view["deadlines"] == {}


def test_deadlines_follow_the_event_times_and_the_reserve(app: Application, clock: ManualClock) -> None:
    game_id, tokens = people_game(app, "schlitzohr", {"per_decision_s": 10, "reserve_s": 5, "policy": "forfeit"})
    view = app.queries.view(game_id, 0)
    seat = int(next(iter(view["to_act"])))
    started = clock.ms
    assert view["deadlines"] == {str(seat): {"at_ms": started + 15_000, "at": view["deadlines"][str(seat)]["at"]}}
    assert view["deadlines"][str(seat)]["at"] == "2026-01-01T00:00:15.000Z"
    clock.advance(12)  # 2 s over the per-decision time: drawn from the reserve
    legal = app.queries.legal(game_id, seat)["commands"]
    after = app.submit(game_id, tokens[seat], legal[0], view["version"])["view"]
    assert after["clock"]["reserve_left_ms"][str(seat)] == 3_000
    nxt = int(next(iter(after["to_act"])))
    left = after["clock"]["reserve_left_ms"][str(nxt)]
    assert after["deadlines"][str(nxt)]["at_ms"] == clock.ms + 10_000 + left
    # The same view rebuilt from the stored events (another process, a replay).
    fresh = Application(app.store).queries.view(game_id, nxt)
    assert fresh["deadlines"] == after["deadlines"]
    # ... and a replay of the history (tabletop replay, /v1/games/{id}?at=).
    history = load_envelopes([json.loads(t) for t in app.store.stored_texts(game_id)])
    replayed = view_at(history, after["version"], nxt)
    assert replayed["deadlines"] == after["deadlines"] and replayed["clock"] == after["clock"]
    assert view_at(history, view["version"], None)["deadlines"] == view["deadlines"]


@pytest.mark.parametrize("game", game_names())
@pytest.mark.parametrize("policy", ["bot:greedy", "bot:random", "forfeit"])
def test_a_seat_that_never_moves_is_timed_out_and_the_game_verifies(
    app: Application, clock: ManualClock, game: str, policy: str
) -> None:
    game_id, _ = people_game(app, game, {"per_decision_s": 1, "policy": policy})
    for _ in range(2000):
        view = app.queries.view(game_id, None)
        if view["status"] == "finished":
            break
        assert handle_due(app, game_id, clock.ms) == "not_due"  # nothing before the deadline
        clock.advance(1.5)
        assert handle_due(app, game_id, clock.ms) == "timed_out"
    else:
        raise AssertionError("the game did not end")
    events = [json.loads(t) for t in app.store.stored_texts(game_id)]
    timeouts = [e for e in events if e["type"] == "TurnTimedOut"]
    decisions = [e for e in events if e["actor"]["kind"] == "timeout"]
    assert timeouts and all(e["actor"] == {"kind": "system"} for e in timeouts)
    assert all(e["data"]["policy"] == policy for e in timeouts)
    if policy == "forfeit":
        assert len(timeouts) == 1 and view["result"]["reason"] == "forfeit"
        assert timeouts[0]["data"]["seat"] not in view["result"]["winners"]
    else:
        assert {e["version"] - 1 for e in decisions if e["command"]} >= {e["version"] for e in timeouts}
    report = verified(app, game_id)
    assert report.commands == len(timeouts)


@pytest.mark.parametrize("game", game_names())
def test_a_tampered_timeout_decision_fails_verification(app: Application, clock: ManualClock, game: str) -> None:
    game_id, _ = people_game(app, game, {"per_decision_s": 1, "policy": "bot:random"})
    clock.advance(2)
    forged_at = forge_decision(app, game_id)
    while app.queries.view(game_id, None)["status"] != "finished":
        clock.advance(2)
        handle_due(app, game_id, clock.ms)
    report = verify_lines(app.store.stored_texts(game_id))
    assert not report.ok and report.discrepancy.version == forged_at, report.discrepancy
    assert report.discrepancy.kind == "rules"


def test_a_timeout_decision_with_a_changed_command_fails_verification(app: Application, clock: ManualClock) -> None:
    game_id, _ = people_game(app, "abluxxen", {"per_decision_s": 1, "policy": "bot:greedy"})
    while app.queries.view(game_id, None)["status"] != "finished":
        clock.advance(2)
        handle_due(app, game_id, clock.ms)
    events = [json.loads(t) for t in app.store.stored_texts(game_id)]
    verified(app, game_id)
    first = next(e for e in events if e["actor"]["kind"] == "timeout" and e["command"])
    envelopes = load_envelopes(events)
    table = table_at(envelopes, first["version"] - 1)
    seat = first["actor"]["seat"]
    other = next(c for c in get_game("abluxxen").legal_commands(table.state, seat) if c != first["command"])
    forged = [
        {**e, "command": other} if e["version"] >= first["version"] and e["command"] == first["command"] else e
        for e in events
    ]
    report = verify_lines([json.dumps(e) for e in rehash(forged)])
    assert not report.ok and report.discrepancy.version == first["version"]
    assert report.discrepancy.kind == "rules"


def test_two_sweepers_racing_time_a_seat_out_once(app: Application, clock: ManualClock, redis_client: redis.Redis, key_prefix: str) -> None:
    game_id, _ = people_game(app, "schlitzohr", {"per_decision_s": 1, "policy": "bot:greedy"})
    clock.advance(2)
    others = [Application(RedisEventStore(redis_client, prefix=key_prefix, clock=clock)) for _ in range(4)]
    barrier = threading.Barrier(len(others))
    outcomes: list[str] = []

    def sweep(other: Application) -> None:
        barrier.wait()
        outcomes.append(handle_due(other, game_id, clock.ms))

    threads = [threading.Thread(target=sweep, args=(o,)) for o in others]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    events = [json.loads(t) for t in app.store.stored_texts(game_id)]
    assert [e["type"] for e in events].count("TurnTimedOut") == 1
    assert len({e["version"] for e in events if e["actor"]["kind"] == "timeout"}) >= 1
    assert outcomes.count("timed_out") >= 1


def test_a_sweep_interrupted_after_recording_is_finished_once(app: Application, clock: ManualClock) -> None:
    game_id, _ = people_game(app, "schlitzohr", {"per_decision_s": 1, "policy": "bot:greedy"})
    clock.advance(2)

    class Killed(Exception):
        pass

    def die() -> None:
        raise Killed

    with pytest.raises(Killed):
        handle_due(app, game_id, clock.ms, between_steps=die)
    view = app.queries.view(game_id, None)
    assert view["clock"]["timed_out"] is not None and view["deadlines"] == {}
    assert app.store._redis.zscore(prefixed(app.store.prefix, CLOCKS_DUE), game_id) == 0
    fresh = Application(app.store)
    assert handle_due(fresh, game_id, clock.ms) == "timed_out"
    assert handle_due(fresh, game_id, clock.ms) in ("not_due", "done")
    events = [json.loads(t) for t in app.store.stored_texts(game_id)]
    assert [e["type"] for e in events].count("TurnTimedOut") == 1
    decided = [e for e in events if e["actor"]["kind"] == "timeout"]
    assert len({e["version"] for e in decided}) == len(decided) and decided[0]["command"] is not None


def test_the_index_holds_the_next_deadline_and_drops_finished_games(
    app: Application, clock: ManualClock, redis_client: redis.Redis, key_prefix: str
) -> None:
    due = prefixed(key_prefix, CLOCKS_DUE)
    game_id, _ = people_game(app, "schlitzohr", {"per_decision_s": 7, "policy": "forfeit"})
    assert redis_client.zscore(due, game_id) == clock.ms + 7_000
    plain, _ = people_game(app, "schlitzohr", None)
    assert redis_client.zscore(due, plain) is None
    clock.advance(8)
    assert handle_due(app, game_id, clock.ms) == "timed_out"
    assert app.queries.view(game_id, None)["status"] == "finished"
    assert redis_client.zscore(due, game_id) is None


def test_a_late_command_for_a_timed_out_decision_is_refused(app: Application, clock: ManualClock) -> None:
    game_id, tokens = people_game(app, "schlitzohr", {"per_decision_s": 1, "policy": "bot:greedy"})
    view = app.queries.view(game_id, None)
    seat = int(next(iter(view["to_act"])))
    clock.advance(2)

    def late_move() -> None:
        legal = app.queries.legal(game_id, seat)["commands"]
        with pytest.raises(RuleViolation) as refused:
            app.submit(game_id, tokens[seat], legal[0], app.queries.view(game_id, None)["version"])
        assert refused.value.code == "turn_timed_out"

    handle_due(app, game_id, clock.ms, between_steps=late_move)
    verified_so_far = [json.loads(t) for t in app.store.stored_texts(game_id)]
    kinds = [e["actor"]["kind"] for e in verified_so_far if e["version"] > view["version"]]
    assert kinds[0] == "system" and set(kinds[1:]) == {"timeout"}


def test_a_timeout_reveals_nothing_hidden_to_other_seats_or_spectators(app: Application, clock: ManualClock) -> None:
    game_id, _ = people_game(app, "abluxxen", {"per_decision_s": 1, "policy": "bot:greedy"})
    seat = int(next(iter(app.queries.view(game_id, None)["to_act"])))
    clock.advance(2)
    assert handle_due(app, game_id, clock.ms) == "timed_out"
    other = 1 - seat
    for viewer, sees_command in ((other, False), (SPECTATOR, False), (seat, True)):
        events = app.queries.history(game_id, viewer, 0, 1000)["events"]
        timed = next(e for e in events if e["type"] == "TurnTimedOut")
        assert set(timed["data"]) == {"seat", "policy", "deadline"} and timed["private"] is None
        decision = [e for e in events if e["actor"]["kind"] == "timeout"]
        assert decision and all((e["command"] is not None) == sees_command for e in decision)
        for e in decision:
            if e["private"] is not None:
                assert viewer in e["visible_to"]
    assert app.queries.view(game_id, other)["status"] == "running"  # hidden facts still hidden


def test_a_timed_out_game_exports_imports_and_replays_like_any_other(
    app: Application, clock: ManualClock, redis_client: redis.Redis
) -> None:
    game_id, _ = people_game(app, "schlitzohr", {"per_decision_s": 1, "reserve_s": 1, "policy": "bot:greedy"})
    while app.queries.view(game_id, None)["status"] != "finished":
        clock.advance(3)
        handle_due(app, game_id, clock.ms)
    texts = app.store.stored_texts(game_id)
    other_prefix = unique_prefix()
    try:
        target = RedisEventStore(redis_client, prefix=other_prefix)
        imported = import_lines(target, texts)
        assert imported.game_id == game_id and target.stored_texts(game_id) == texts
        copy = Application(target)
        assert copy.queries.view(game_id, None) == app.queries.view(game_id, None)
        assert verify_lines(target.stored_texts(game_id)).ok
    finally:
        delete_prefix(redis_client, other_prefix)
    # Every version replays, and the timed-out seat's view shows what it saw then.
    history = load_envelopes([json.loads(t) for t in texts])
    for version in range(1, len(history) + 1):
        view_at(history, version, 0)


def test_a_pass_past_its_time_budget_leaves_the_rest_for_the_next_pass_in_deadline_order(
    redis_target: Any, key_prefix: str, redis_client: redis.Redis, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.bootstrap import build
    from workers import sweeper

    svc = build(Settings(redis_url=redis_target.url, key_prefix=key_prefix))
    try:
        ids = [people_game(svc.app, "schlitzohr", {"per_decision_s": 1, "policy": "forfeit"})[0] for _ in range(3)]
        later = __import__("time").time() + 10
        monkeypatch.setattr(sweeper, "CLOCK_PASS_BUDGET_S", 0.0)  # every pass is over budget at once
        first = sweeper.sweep_clocks(svc, now=later)
        assert list(first) == ids[:1] and first[ids[0]] == "timed_out"  # one per pass, the earliest
        second = sweeper.sweep_clocks(svc, now=later)
        assert list(second) == ids[1:2]
    finally:
        svc.redis.close()


def test_a_schlitzohr_forfeit_in_a_three_seat_game_plays_on_without_the_seat(
    app: Application, clock: ManualClock
) -> None:
    game_id = app.create_game("schlitzohr", {"turn_cap": 30}, [None] * 3, clock={"per_decision_s": 1, "policy": "forfeit"})["game_id"]
    tokens = [app.join(game_id, f"p{i}").token for i in range(3)]
    first = int(next(iter(app.queries.view(game_id, None)["to_act"])))
    clock.advance(2)
    assert handle_due(app, game_id, clock.ms) == "timed_out"
    view = app.queries.view(game_id, None)
    assert view["status"] == "running" and first not in map(int, view["to_act"])
    # The other two play on; whenever the forfeited seat's turn would come, it is skipped.
    seen: set[int] = set()
    for step in range(400):
        view = app.queries.view(game_id, None)
        if view["status"] == "finished":
            break
        (seat,) = map(int, view["to_act"])
        assert seat != first
        seen.add(seat)
        legal = app.queries.legal(game_id, seat)["commands"]
        app.submit(game_id, tokens[seat], legal[step % len(legal)], view["version"])
    assert view["status"] == "finished" and seen == {0, 1, 2} - {first}
    assert first not in view["result"]["winners"]
    report = verified(app, game_id)
    assert report.commands > 1
    types = [json.loads(t)["type"] for t in app.store.stored_texts(game_id)]
    assert types.count("SeatForfeited") == 1 and types.count("TurnTimedOut") == 1
