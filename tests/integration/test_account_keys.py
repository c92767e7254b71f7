"""Player keys replaced on a real Redis: two stores stand for two server processes
sharing one Redis, each with its own clock, so the bound on how long a replaced key
keeps working elsewhere (``RECHECK_S``) is checked exactly, without sleeping."""

from __future__ import annotations

import secrets
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis

from service.accounts.store import RECHECK_S, AccountStore
from service.app.errors import Unauthenticated


class Clock:
    """A clock a test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_replaced_key_is_refused_here_at_once_and_elsewhere_after_the_recheck(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    here_clock, there_clock = Clock(), Clock()
    here = AccountStore(redis_client, key_prefix, here_clock)
    there = AccountStore(redis_client, key_prefix, there_clock)
    registered = here.register("ada" + secrets.token_hex(3))
    old = registered.player_key
    assert there.resolve(old) == registered.account  # "there" has verified the key

    rotated = here.rotate(old)
    assert rotated.account == registered.account and rotated.player_key != old
    assert here.resolve(old) is None  # at once where it was replaced
    assert here.resolve(rotated.player_key) == registered.account
    # Elsewhere the old key is trusted for RECHECK_S at most, then read again and refused.
    there_clock.now += RECHECK_S * 0.9
    assert there.resolve(old) == registered.account
    there_clock.now += RECHECK_S * 0.2
    assert there.resolve(old) is None
    assert there.cached(old) is None  # it names no rate-limit bucket either
    assert there.resolve(rotated.player_key) == registered.account
    # The old key cannot replace the new one, nor be replaced again.
    with pytest.raises(Unauthenticated):
        there.rotate(old)
    assert there.resolve(rotated.player_key) == registered.account


def test_of_rotations_racing_with_one_key_exactly_one_wins(redis_client: redis.Redis, key_prefix: str) -> None:
    stores = [AccountStore(redis_client, key_prefix) for _ in range(8)]
    key = stores[0].register("bo" + secrets.token_hex(3)).player_key

    def rotate(store: AccountStore) -> str | None:
        try:
            return store.rotate(key).player_key
        except Unauthenticated:
            return None

    with ThreadPoolExecutor(len(stores)) as pool:
        won = [k for k in pool.map(rotate, stores) if k is not None]
    assert len(won) == 1
    fresh = AccountStore(redis_client, key_prefix)
    assert fresh.resolve(won[0]) is not None and fresh.resolve(key) is None


def test_a_rotation_keeps_the_name_and_its_reservation(redis_client: redis.Redis, key_prefix: str) -> None:
    store = AccountStore(redis_client, key_prefix)
    name = "cy" + secrets.token_hex(3)
    key = store.register(name).player_key
    store.rotate(key)
    assert store.is_registered(name) and store.reserved(name.upper())
