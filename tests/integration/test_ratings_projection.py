"""The ratings projection against openskill itself, on a real Redis.

Games of bots of different levels are written exactly as the application writes them;
the expected ratings are computed by ``support.expected_ratings`` with openskill from the
public histories alone. Checked: the projector's ratings equal them; a full rebuild
reproduces every ratings key byte for byte; games projected out of the rating order
(latest first, or by racing threads) end the same, each game rated exactly once.
"""

from __future__ import annotations

import json
import random
import threading
from typing import Any

import pytest
import redis
from support.clock import StepClock
from support.cluster import LocalCluster
from support.expected_ratings import Played, expected, played_from_events
from support.histories import Player, seed_for, write_game
from support.readmodels import dump_read_models, rebuilt_read_models
from support.redis import delete_prefix, unique_prefix

from events.model.redaction import SPECTATOR
from events.projections import ReadModels, Updater
from events.projections.model import created_us
from events.projections.rating_keys import RatingKeys
from events.projections.rating_outcome import RatedOutcome
from events.projections.ratings import Ratings
from events.redis_adapter import feed
from events.redis_adapter.store import RedisEventStore
from workers.projector import Projector

pytestmark = pytest.mark.store

SHARDS = 2
GAMES: list[tuple[str, str, list[Player]]] = [
    ("r1", "schlitzohr", [("R", "random"), ("G", "greedy")]),
    ("r2", "abluxxen", [("G", "greedy"), ("R", "random"), ("S", "strong")]),
    ("r3", "schlitzohr", [("S", "strong"), ("R", "random"), ("G", "greedy")]),
    ("r4", "schlitzohr", [("R1", "random"), ("R2", "random")]),  # one identity: not rated
    ("r5", "abluxxen", [("R", "random"), ("G", "greedy")]),
    ("r6", "schlitzohr", [("G1", "greedy"), ("Ann", None), ("G2", "greedy"), ("R", "random")]),
    ("r7", "schlitzohr", [("G", "greedy"), ("S", "strong")]),
    ("r8", "abluxxen", [("S", "strong"), ("G", "greedy")]),
    ("r9", "schlitzohr", [("Ann", None), ("Bob", None), ("G", "greedy")]),  # two accounts
    ("r10", "abluxxen", [("Ann", None), ("R", "random")]),  # an account against a bot
    ("r11", "schlitzohr", [("Guest", None), ("Ann", None)]),  # one account, a guest: not rated
]
ACCOUNTS = frozenset({"Ann", "Bob"})


def write_all(store: RedisEventStore, client: Any, prefix: str) -> list[Played]:
    played = []
    for game_id, name, players in GAMES:
        write_game(
            store,
            game_id,
            name,
            players,
            seed=seed_for(game_id),
            on_append=lambda g, v: feed.publish(client, prefix, g, v, shards=SHARDS),
            accounts=ACCOUNTS,
        )
        events = [
            {"type": e.type, "data": e.data, "time": e.time}
            for e in store.read_all(game_id, SPECTATOR)
        ]
        found = played_from_events(game_id, events)
        assert found is not None
        played.append(found)
    return played


def stored_ratings(client: Any, prefix: str) -> dict[str, dict[str, tuple[float, float, int]]]:
    out: dict[str, dict[str, tuple[float, float, int]]] = {}
    for game in ("schlitzohr", "abluxxen"):
        raw = client.hgetall(RatingKeys(prefix, game).rating)
        table = {}
        for ident, text in raw.items():
            value = json.loads(text)
            table[ident.decode()] = (value["mu"], value["sigma"], value["games"])
        if table:
            out[game] = table
    return out


def check_each_game_rated_once(client: Any, prefix: str, played: list[Played]) -> None:
    want = expected(played)
    for game in ("schlitzohr", "abluxxen"):
        k = RatingKeys(prefix, game)
        assert client.zcard(k.pending) == 0
        rated = {m.decode() for m in client.zrange(k.done, 0, -1)}
        records = {f.decode() for f in client.hkeys(k.record)}
        rateable = {
            p.game_id for p in played if p.game == game and len({s for s in p.seats if s}) > 1
        }
        assert rated == records == rateable
        for ident, (_mu, _sigma, games) in want.get(game, {}).items():
            assert client.zcard(k.played(ident)) == games


def test_projected_ratings_equal_openskill_and_a_rebuild(
    store: RedisEventStore, redis_client: redis.Redis, key_prefix: str
) -> None:
    played = write_all(store, redis_client, key_prefix)
    Projector(redis_client, key_prefix, shards=SHARDS, consumer="p").catch_up_once()
    want = expected(played)
    assert set(want) == {"schlitzohr", "abluxxen"}
    assert "bot:greedy" in want["schlitzohr"] and "bot:strong" in want["abluxxen"]
    assert {"player:Ann", "player:Bob"} <= set(want["schlitzohr"]) and "player:Ann" in want[
        "abluxxen"
    ]
    assert not any("Guest" in ident for table in want.values() for ident in table)
    assert stored_ratings(redis_client, key_prefix) == want  # exact floats
    check_each_game_rated_once(redis_client, key_prefix, played)
    live = dump_read_models(redis_client, key_prefix)
    assert any(":ratings:" in k or "ratings:{" in k for k in live)
    assert rebuilt_read_models(redis_client, key_prefix) == live


def test_games_projected_latest_first_are_rated_in_the_rating_order(
    store: RedisEventStore, redis_client: redis.Redis, key_prefix: str
) -> None:
    played = write_all(store, redis_client, key_prefix)
    updater = Updater(store, ReadModels(redis_client, key_prefix))
    for p in sorted(played, key=lambda p: p.ended, reverse=True):
        updater.update(p.game_id)  # each one rated at once, then re-rated after earlier ones
    assert stored_ratings(redis_client, key_prefix) == expected(played)
    check_each_game_rated_once(redis_client, key_prefix, played)
    live = dump_read_models(redis_client, key_prefix)
    assert rebuilt_read_models(redis_client, key_prefix) == live


def test_racing_projectors_rate_each_game_once(
    store: RedisEventStore, redis_client: redis.Redis, key_prefix: str
) -> None:
    played = write_all(store, redis_client, key_prefix)
    ids = [p.game_id for p in played]
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def run(order: list[str]) -> None:
        updater = Updater(store, ReadModels(redis_client, key_prefix))
        barrier.wait()
        try:
            for game_id in order:
                updater.update(game_id)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    orders = [ids, ids[::-1], ids[1::2] + ids[::2], ids[::2][::-1] + ids[1::2]]
    threads = [threading.Thread(target=run, args=(o,)) for o in orders]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    Updater(
        store, ReadModels(redis_client, key_prefix)
    ).ratings.rate_all()  # leftovers of lost races
    assert stored_ratings(redis_client, key_prefix) == expected(played)
    check_each_game_rated_once(redis_client, key_prefix, played)
    live = dump_read_models(redis_client, key_prefix)
    assert rebuilt_read_models(redis_client, key_prefix) == live


def test_ratings_on_a_cluster_equal_openskill_and_a_rebuild(local_cluster: LocalCluster) -> None:
    client, prefix = local_cluster.client(), unique_prefix()
    try:
        store = RedisEventStore(client, prefix=prefix, clock=StepClock())
        played = write_all(store, client, prefix)
        Projector(client, prefix, shards=SHARDS, consumer="c", claim_idle_ms=0).catch_up_once()
        assert stored_ratings(client, prefix) == expected(played)
        check_each_game_rated_once(client, prefix, played)
        live = dump_read_models(client, prefix)
        assert rebuilt_read_models(client, prefix) == live
    finally:
        delete_prefix(client, prefix)
        client.close()


class Crash(Exception):
    """Stands for the process dying at the hook's point."""


class DiesBeforeRating(Ratings):
    """Ratings whose process dies after submitting a game, before rating it."""

    def rate_pending(self, game: str, batch: int = 100) -> int:
        raise Crash


def test_a_crash_between_submitting_and_rating_is_repaired_by_reconciliation(
    store: RedisEventStore, redis_client: redis.Redis, key_prefix: str
) -> None:
    played = write_all(store, redis_client, key_prefix)
    models = ReadModels(redis_client, key_prefix)
    dying = Updater(store, models, DiesBeforeRating(redis_client, key_prefix))
    for p in played:
        with pytest.raises(Crash):
            dying.update(p.game_id)
    k = RatingKeys(key_prefix, "schlitzohr")
    assert redis_client.zcard(k.pending) > 0 and redis_client.hlen(k.rating) == 0
    restarted = Projector(redis_client, key_prefix, shards=SHARDS, consumer="p2")
    assert restarted.reconcile() == 0  # every read model is up to date: only ratings were left
    assert stored_ratings(redis_client, key_prefix) == expected(played)
    check_each_game_rated_once(redis_client, key_prefix, played)
    assert rebuilt_read_models(redis_client, key_prefix) == dump_read_models(
        redis_client, key_prefix
    )


class Counting(Ratings):
    """Ratings that count the ratings they write (re-ratings included)."""

    written = 0

    def rate_pending(self, game: str, batch: int = 100) -> int:
        done = super().rate_pending(game, batch)
        Counting.written += done
        return done


def test_a_projector_catching_up_a_backlog_rates_each_game_once_without_re_rating(
    store: RedisEventStore, redis_client: redis.Redis, key_prefix: str
) -> None:
    played = write_all(store, redis_client, key_prefix)  # a backlog over both shards
    projector = Projector(redis_client, key_prefix, shards=SHARDS, consumer="p")
    projector.updater.ratings = Counting(redis_client, key_prefix)
    Counting.written = 0
    projector.catch_up_once()
    rateable = [p for p in played if len({s for s in p.seats if s}) > 1]
    assert Counting.written == len(rateable)  # shard by shard, yet nothing rated twice
    assert stored_ratings(redis_client, key_prefix) == expected(played)


def test_a_running_game_changes_no_rating_until_it_ends(
    store: RedisEventStore, redis_client: redis.Redis, key_prefix: str
) -> None:
    """Ratings read only a finished game's public result: while a game runs, whatever its
    seats do, no ratings key changes (nothing to learn from them about hidden facts)."""
    played = write_all(store, redis_client, key_prefix)
    updater = Updater(store, ReadModels(redis_client, key_prefix))
    for p in played:
        updater.update(p.game_id)
    before = {
        k: v for k, v in dump_read_models(redis_client, key_prefix).items() if "ratings:" in k
    }
    players: list[Player] = [("Ann", None), ("G", "greedy"), ("R", "random")]
    for step in range(1, 40, 6):  # the same game, a few commands further each time
        game_id = f"run{step}"
        written = write_game(
            store,
            game_id,
            "schlitzohr",
            players,
            seed=seed_for("run"),
            commands=step,
            accounts=ACCOUNTS,
        )
        assert not written.finished
        updater.update(game_id)
        now = {
            k: v for k, v in dump_read_models(redis_client, key_prefix).items() if "ratings:" in k
        }
        assert now == before


@pytest.mark.parametrize("batch", [1, 2, 3, 100])
def test_any_arrival_order_and_batch_size_ends_in_the_rating_order(
    redis_client: redis.Redis, key_prefix: str, batch: int
) -> None:
    """Synthetic results arriving shuffled, rated after each arrival (and some in
    bursts) with small batches: every late arrival re-rates what followed it, and the
    end equals openskill fed the games in (time, id) order."""
    pick = random.Random(batch)
    pool = ["player:Ann", "player:Bob", "player:Cy", "bot:random", "bot:greedy"]
    games = []
    for n in range(40):
        seats = pick.sample(pool, pick.randint(2, 4))
        scores = [pick.randint(0, 5) for _ in seats]
        best = max(scores)
        winners = [i for i, s in enumerate(scores) if s == best]
        ended = f"2026-12-01T10:00:{n // 4:02d}.{pick.randint(0, 2):06d}Z"  # equal times too
        games.append(Played(f"s{n:02d}", "schlitzohr", ended, list(seats), scores, winners))
    ratings = Ratings(redis_client, key_prefix)
    arrivals = list(games)
    pick.shuffle(arrivals)
    for i, g in enumerate(arrivals):
        ranks_ = [
            1
            + sum(
                (o in g.winners, g.scores[o]) > (s in g.winners, g.scores[s])
                for o in range(len(g.scores))
            )
            for s in range(len(g.scores))
        ]
        outcome = RatedOutcome(
            g.game_id,
            g.game,
            g.ended,
            created_us(g.ended),
            tuple((ident, rank) for ident, rank in zip(g.seats, ranks_, strict=True)),
        )
        assert ratings.submit(outcome)
        assert not ratings.submit(outcome)  # once, however often it is submitted
        if i % 3:
            ratings.rate_pending("schlitzohr", batch)
            assert redis_client.zcard(ratings.keys("schlitzohr").pending) == 0  # all of them
    ratings.rate_pending("schlitzohr", batch)
    assert stored_ratings(redis_client, key_prefix) == expected(games)
    check_each_game_rated_once(redis_client, key_prefix, games)


def test_a_late_game_and_a_new_one_queued_together_are_both_rated_in_one_call(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    """Queue: a late game (before two rated ones) and a new one (after them), batch 3:
    the first step re-rates three games and must not stop before the fourth."""
    ratings = Ratings(redis_client, key_prefix)

    def game(n: int, second: int) -> RatedOutcome:
        ended = f"2026-12-01T10:00:{second:02d}.000000Z"
        players = (("bot:random", 1 + n % 2), ("bot:greedy", 2 - n % 2))
        return RatedOutcome(f"q{n}", "schlitzohr", ended, created_us(ended), players)

    for earlier in (game(2, 2), game(3, 3)):
        ratings.submit(earlier)
        ratings.rate_pending("schlitzohr", 3)
    ratings.submit(game(1, 1))  # late: before the two rated games
    ratings.submit(game(4, 4))  # new: after them
    ratings.rate_pending("schlitzohr", 3)
    k = ratings.keys("schlitzohr")
    assert redis_client.zcard(k.pending) == 0 and redis_client.zcard(k.done) == 4
