"""Name reservations: every look-alike key of a registered name points at its account.

A name is compared by up to two keys (``names.lookalike_keys``: the skeleton of its
case fold, and the skeleton taken before the fold, which catches a capital ``I`` for
``l``); its account lives under the first only (``names.name_key``). Checking a new
name's keys against accounts alone is one-sided: ``PayPaI`` registered first sits under
``paypai``'s key, so a later ``paypal`` -- whose only key is ``paypal``'s -- found
nothing and two look-alikes lived side by side. So a registration also *reserves* every
look-alike key of its name, pointing at its account, and a name is taken when any of
its keys holds an account or a live reservation.

``<p>name:{<key>}`` -- string: the account id that reserved look-alike key ``<key>``
    (a hex digest: no client text forms a key). Written before the account's record,
    so a crash between the two leaves a reservation without an account, which counts
    for nothing (:func:`taken` checks the account exists).
``<p>accounts:reservations`` -- string: set once every account registered before
    reservations existed has its keys reserved (:func:`backfill`).

Failure modes: ``redis.RedisError`` when Redis fails (callers answer 503). Guarantees:
:func:`reserve` and :func:`backfill` are idempotent.
"""

from __future__ import annotations

import json
from typing import Any

from events.accounts.keys import AccountKeys
from events.accounts.names import lookalike_keys
from events.redis_adapter.keys import check_prefix

BATCH = 500
"""Keys one SCAN round trip of the backfill asks for."""


def reservation_key(prefix: str, key: str) -> str:
    """Where look-alike key ``key`` (a hex digest) is reserved."""
    return f"{check_prefix(prefix)}name:{{{key}}}"


def backfill_mark(prefix: str) -> str:
    return f"{check_prefix(prefix)}accounts:reservations"


def taken(client: Any, prefix: str, name: str) -> bool:
    """Whether ``name`` or a look-alike of it belongs to an account: one round trip, two
    when a reservation is found (its account must exist)."""
    keys = lookalike_keys(name)
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.exists(AccountKeys.of(prefix, key).record)
        pipe.get(reservation_key(prefix, key))
    replies = pipe.execute()
    if any(replies[0::2]):
        return True
    holders = {_text(r) for r in replies[1::2] if r is not None}
    if not holders:
        return False
    pipe = client.pipeline(transaction=False)
    for account_id in holders:
        pipe.exists(AccountKeys.of(prefix, account_id).record)
    return any(pipe.execute())


def reserve(client: Any, prefix: str, account_id: str, name: str) -> None:
    """Point every look-alike key of ``name`` at ``account_id``."""
    pipe = client.pipeline(transaction=False)
    for key in lookalike_keys(name):
        pipe.set(reservation_key(prefix, key), account_id)
    pipe.execute()


def backfill(client: Any, prefix: str) -> int:
    """Reserve the look-alike keys of every account registered before reservations
    existed, once per store (then :func:`backfill_mark` is set and later calls return
    at once); how many accounts it went through. Cut off, it runs again in full."""
    if client.exists(backfill_mark(prefix)):
        return 0
    pattern = f"{check_prefix(prefix)}account:{{*}}"
    done = 0
    for raw_key in client.scan_iter(match=pattern, count=BATCH):
        key = _text(raw_key)
        if not key.endswith("}"):
            continue  # an account's games, notices or last notices
        raw = client.get(key)
        if raw is None:
            continue
        account_id = key[key.index("{") + 1 : -1]
        reserve(client, prefix, account_id, json.loads(raw)["name"])
        done += 1
    client.set(backfill_mark(prefix), "1")
    return done


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
