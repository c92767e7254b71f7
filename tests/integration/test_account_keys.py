"""Accounts on a real Redis, several stores standing for several server processes:
player keys replaced (each store with its own clock, so the bound on how long a
replaced key keeps working elsewhere, ``RECHECK_S``, is checked exactly, without
sleeping), and look-alike names registered at the same instant."""

from __future__ import annotations

import json
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis
from support.cluster import LocalCluster
from support.redis import delete_prefix, unique_prefix

from events.accounts import reservations
from events.accounts.keys import AccountKeys
from events.accounts.names import lookalike_keys, name_key
from service.accounts.store import RECHECK_S, TURN_TTL_MS, TURN_WAIT_S, AccountStore
from service.app.errors import NameRegistered, ServerBusy, Unauthenticated
from workers.projector import Projector


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


class SlowStore(AccountStore):
    """A store whose process pauses between the look-alike check and the write: the
    window in which two registrations of different look-alike keys used to both pass."""

    def __init__(self, client: redis.Redis, prefix: str, pause: threading.Event) -> None:
        super().__init__(client, prefix)
        self._pause = pause

    def reserved(self, name: str) -> bool:
        taken = super().reserved(name)
        self._pause.wait(2)
        return taken


def test_two_look_alikes_registered_at_once_cannot_both_pass(redis_client: redis.Redis, key_prefix: str) -> None:
    # "PayPaI" (capital I) and "paypal" are one name to a reader, under two keys: the
    # capital I is caught by the skeleton taken before the case fold (names.lookalike_keys).
    stem = secrets.token_hex(3)
    names = [f"{stem}PayPaI", f"{stem}paypal"]
    assert len({name_key(n) for n in names}) == 2 and name_key(names[1]) in lookalike_keys(names[0])
    go = threading.Event()
    stores = [SlowStore(redis_client, key_prefix, go) for _ in names]

    def register(i: int) -> str:
        try:
            stores[i].register(names[i])
            return "registered"
        except NameRegistered:
            return "refused"

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(register, 0)
        time.sleep(0.3)  # the first has checked and is paused before its write
        second = pool.submit(register, 1)
        time.sleep(0.3)
        go.set()
        outcomes = sorted([first.result(10), second.result(10)])
    assert outcomes == ["refused", "registered"]


def test_a_look_alike_is_refused_whichever_of_the_two_came_first(redis_client: redis.Redis, key_prefix: str) -> None:
    store = AccountStore(redis_client, key_prefix)
    stem = secrets.token_hex(3)
    store.register(f"{stem}PayPaI")  # under the key of "...paypai"; reserves "...paypal"'s too
    with pytest.raises(NameRegistered):
        store.register(f"{stem}paypal")
    assert store.reserved(f"{stem}PAYPAL")  # a guest may not sit under it either


def test_accounts_from_before_reservations_are_reserved_once_by_the_backfill(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    stem = secrets.token_hex(3)
    old_name = f"{stem}PayPaI"
    # An account as registrations wrote it before reservations: its record only.
    key = name_key(old_name)
    record = json.dumps({"name": old_name, "key_hash": "0" * 64, "created": 0})
    redis_client.set(AccountKeys.of(key_prefix, key).record, record)
    store = AccountStore(redis_client, key_prefix)
    assert not store.reserved(f"{stem}paypal")  # the one-sided check of old
    # The projector's housekeeping runs it (its first pass, at start).
    Projector(redis_client, key_prefix, shards=1, consumer="p")._housekeeping()
    assert store.reserved(f"{stem}paypal")
    assert reservations.backfill(redis_client, key_prefix) == 0  # done once


def test_a_reservation_whose_account_was_never_written_counts_for_nothing(
    redis_client: redis.Redis, key_prefix: str
) -> None:
    name = "orphan" + secrets.token_hex(3)
    # A registration that died between its reservations and its record.
    reservations.reserve(redis_client, key_prefix, name_key(name), name)
    store = AccountStore(redis_client, key_prefix)
    assert not store.reserved(name)
    assert store.register(name).account.name == name


def test_a_registration_that_cannot_get_its_turn_is_refused_as_busy(redis_client: redis.Redis, key_prefix: str) -> None:
    store = AccountStore(redis_client, key_prefix)
    turn = f"{key_prefix}accounts:registering"
    redis_client.set(turn, "held by a stuck process", px=TURN_TTL_MS)
    name = "late" + secrets.token_hex(3)
    started = time.monotonic()
    with pytest.raises(ServerBusy):
        store.register(name)
    assert TURN_WAIT_S <= time.monotonic() - started < TURN_WAIT_S + 1
    assert not store.reserved(name)  # nothing written
    assert 0 < redis_client.pttl(turn) <= TURN_TTL_MS  # a dead holder's turn expires by itself
    redis_client.delete(turn)
    assert store.register(name).account.name == name
    assert not redis_client.exists(turn)  # given back


def test_accounts_on_a_cluster_register_reserve_rotate_and_backfill(local_cluster: LocalCluster) -> None:
    """Each account, reservation and the registrations' turn live in slots of their own:
    nothing may need two slots at once (CROSSSLOT), and the backfill scans every node."""
    client, prefix = local_cluster.client(), unique_prefix()
    try:
        store = AccountStore(client, prefix)
        stem = secrets.token_hex(3)
        key = store.register(f"{stem}PayPaI").player_key
        with pytest.raises(NameRegistered):
            store.register(f"{stem}paypal")
        rotated = store.rotate(key)
        assert store.resolve(rotated.player_key) is not None and store.resolve(key) is None
        old = [f"{stem}old{i}I" for i in range(12)]  # accounts from before reservations
        for name in old:
            record = json.dumps({"name": name, "key_hash": "0" * 64, "created": 0})
            client.set(AccountKeys.of(prefix, name_key(name)).record, record)
        assert not any(store.reserved(n.replace("I", "l").lower()) for n in old)
        assert reservations.backfill(client, prefix) == len(old) + 1
        assert all(store.reserved(n.replace("I", "l").lower()) for n in old)
    finally:
        delete_prefix(client, prefix)
        client.close()
