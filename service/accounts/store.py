"""Accounts in Redis: register a name, resolve a player key, reserve names, list games.

A player key reads ``pk_<account id>.<secret>``: the account id (the name key, see
``events.accounts.names``) lets the server find the stored hash with one GET; the
256-bit secret makes it unguessable; only SHA-256 of the whole key is stored, and
it is compared in constant time. It never has the shape of a seat token
(``<game>.<seat>.<secret>``), so the two can never be mistaken for each other.

Resolving a key costs one GET the first time a process sees it; the answer is kept
for :data:`RECHECK_S`, then read again, so acting with a key costs no round trip
beyond what a seat token costs (one GET a second per key and process at most). A key
can be replaced (:meth:`AccountStore.rotate`): the old one is refused at once by the
process that replaced it and within :data:`RECHECK_S` by every other.

A name is registered in a turn of its own (a short Redis lock): the look-alike check
and the writes -- the reservations of its comparison keys
(``events.accounts.reservations``), then its record -- cannot interleave with another
registration's. Failure modes: ``redis.RedisError`` when Redis is down (the HTTP layer
answers 503); :class:`NameRegistered` when a name or a confusable spelling of it is
taken; :class:`ServerBusy` when a registration's turn does not come in time.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from events.accounts import reservations
from events.accounts.keys import AccountKeys
from events.accounts.names import name_key
from events.redis_adapter.scripts import Script
from service.app.bot_seats import refuse_bot_seat_name
from service.app.errors import NameRegistered, ServerBusy, Unauthenticated

KEY_PREFIX = "pk_"
_KEPT = 10_000
"""Resolved player keys a process remembers (then it starts afresh: a cache)."""

RECHECK_S = 1.0
"""How long a process trusts a player key it verified before it reads the account again:
the most time a replaced key keeps working in another process."""

TURN_TTL_MS = 5_000
"""How long the registrations' turn outlives a holder that died with it."""

TURN_WAIT_S = 2.0
"""How long a registration waits for its turn before it is refused (503 ``server_busy``)."""

_RELEASE = """
-- Give the registrations' turn back, only if this call still holds it.
-- KEYS[1] = the turn key; ARGV[1] = the holder's token.
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

_SWAP = """
-- Replace an account record only if it is still the one the caller read (a
-- compare-and-set: of two rotations racing with one key, one wins, the other finds
-- the record changed). KEYS[1] = the record; ARGV[1] = the record read; ARGV[2] = the new one.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
"""


@dataclass(frozen=True, slots=True)
class Account:
    """A registered player: its id (the name key) and canonical name."""

    account_id: str
    name: str


@dataclass(frozen=True, slots=True)
class Registered:
    """A new account and its player key (shown once; only its hash is stored)."""

    account: Account
    player_key: str


def is_player_key(token: str) -> bool:
    """Whether ``token`` has the shape of a player key (not whether it is valid)."""
    return token.startswith(KEY_PREFIX)


def key_hash(key: str) -> str:
    """SHA-256 hex of a player key: what is stored of it."""
    return hashlib.sha256(key.encode()).hexdigest()


class AccountStore:
    """The accounts under one key prefix. Thread-safe."""

    def __init__(self, client: Any, prefix: str, clock: Callable[[], float] = time.monotonic) -> None:
        self._redis = client
        self._prefix = prefix
        self._clock = clock
        self._swap = Script(client, _SWAP)
        self._release = Script(client, _RELEASE)
        self._turn_key = f"{prefix}accounts:registering"
        self._checked: dict[tuple[str, str], tuple[Account, float]] = {}
        """(account id, SHA-256 of a player key) -> the account and when this process last
        read that the key is the account's."""

    def keys(self, account_id: str) -> AccountKeys:
        return AccountKeys.of(self._prefix, account_id)

    def register(self, name: str) -> Registered:
        """Reserve ``name`` (already checked by ``engine.table.player_name``) and answer its
        player key; NameRegistered if it or a look-alike is taken, NameReserved if it is
        or looks like a bot seat's name (``service.app.bot_seats``), ServerBusy if the
        registrations' turn (:meth:`_in_turn`) did not come within ``TURN_WAIT_S``.

        Two look-alikes may have different keys (``PayPaI`` and ``paypal``), so the SET NX
        on the new name's key alone cannot order them: registrations take turns, and the
        look-alike check and the writes (its reservations, then its record) happen within
        one turn."""
        refuse_bot_seat_name(name)
        account_id = name_key(name)
        key = self._new_key(account_id)
        record = json.dumps({"name": name, "key_hash": key_hash(key), "created": int(time.time())})
        with self._in_turn():
            if self.reserved(name):
                raise NameRegistered("this name, or one that looks like it, is registered")
            # Reserved first: a crash before the record leaves a reservation that counts
            # for nothing (its account does not exist), never an account unreserved.
            reservations.reserve(self._redis, self._prefix, account_id, name)
            if not self._redis.set(self.keys(account_id).record, record, nx=True):
                raise NameRegistered("this name, or one that looks like it, is registered")
        return Registered(Account(account_id, name), key)

    @contextmanager
    def _in_turn(self) -> Iterator[None]:
        """Hold the registrations' turn: a key (``<p>accounts:registering``) set NX with a
        token of this call's, deleted only by its holder (compare-and-delete), expiring
        after ``TURN_TTL_MS`` if its holder dies. A turn lasts two round trips, and names
        are registered by people, rarely: waiting is short and being refused (ServerBusy
        after ``TURN_WAIT_S``) rarer still."""
        token = secrets.token_hex(16)
        deadline = self._clock() + TURN_WAIT_S
        pause = 0.002
        while not self._redis.set(self._turn_key, token, nx=True, px=TURN_TTL_MS):
            if self._clock() > deadline:
                raise ServerBusy("registrations are busy; try again in a moment")
            # Backing off (2 ms doubling to 32 ms, jittered): a crowd of waiting
            # registrations must not turn into a flood of SET NX on Redis.
            time.sleep(pause * (0.5 + random.random()))
            pause = min(pause * 2, 0.032)
        try:
            yield
        finally:
            self._release([self._turn_key], [token])

    def reserved(self, name: str) -> bool:
        """Whether ``name`` or a confusable spelling of it is registered, whichever was
        registered first (``events.accounts.reservations``; one round trip, or two)."""
        return reservations.taken(self._redis, self._prefix, name)

    def is_registered(self, name: str) -> bool:
        """Whether ``name``, spelled exactly so, is a registered player's name."""
        raw = self._redis.get(self.keys(name_key(name)).record)
        return raw is not None and json.loads(raw)["name"] == name

    def cached(self, player_key: str) -> Account | None:
        """The account of a player key this process has verified before (no I/O; it may
        have been replaced since, for at most :data:`RECHECK_S`: fit to name a rate-limit
        bucket, not to act -- :meth:`resolve` is for that)."""
        claim = self._claim(player_key)
        known = None if claim is None else self._checked.get(claim)
        return None if known is None else known[0]

    def resolve(self, player_key: str) -> Account | None:
        """The account ``player_key`` belongs to, or None (malformed, unknown, wrong secret,
        replaced). Read from Redis unless this process verified it in the last :data:`RECHECK_S`."""
        claim = self._claim(player_key)
        return None if claim is None else self.fits(*claim)

    def fits(self, account_id: str, hashed_key: str) -> Account | None:
        """The account if the player key whose SHA-256 is ``hashed_key`` is still its key
        (also for what a key opened and outlives the request: a stream, a ticket); None
        once it was replaced. Read from Redis unless confirmed in the last :data:`RECHECK_S`."""
        known = self._checked.get((account_id, hashed_key))
        if known is not None and self._clock() - known[1] < RECHECK_S:
            return known[0]
        read = self._read(account_id, hashed_key)
        if read is None:
            self._checked.pop((account_id, hashed_key), None)
            return None
        self._remember(account_id, hashed_key, read[0])
        return read[0]

    def rotate(self, player_key: str) -> Registered:
        """Replace ``player_key`` by a fresh key of the same account and answer it (shown
        once, like the first). From then on the old key is refused by this process, and
        by every other within :data:`RECHECK_S` (and the streams and tickets it opened or
        got with it: ``service.http.stream_access``, ``service.http.player_stream``). None
        of the account's games, seats or notices change.
        Unauthenticated if the key fits no account any more (replaced meanwhile, by a
        racing rotation too: of two rotations with one key, one wins)."""
        claim = self._claim(player_key)
        read = None if claim is None else self._read(*claim)
        if claim is None or read is None:
            raise Unauthenticated("invalid player key")
        account, raw = read
        key = self._new_key(account.account_id)
        fresh = key_hash(key)
        record = {**json.loads(raw), "key_hash": fresh, "rotated": int(time.time())}
        if not self._swap([self.keys(account.account_id).record], [raw, json.dumps(record)]):
            raise Unauthenticated("invalid player key")
        self._checked.pop(claim, None)
        self._remember(account.account_id, fresh, account)
        return Registered(account, key)

    def _claim(self, player_key: str) -> tuple[str, str] | None:
        """The account id a player key names and the key's SHA-256 (what is stored of
        it); None for a malformed key."""
        account_id, dot, secret = player_key.removeprefix(KEY_PREFIX).partition(".")
        if not dot or len(secret) < 20:
            return None
        try:
            self.keys(account_id)
        except ValueError:
            return None
        return account_id, key_hash(player_key)

    def _read(self, account_id: str, hashed_key: str) -> tuple[Account, bytes | str] | None:
        """The account if ``hashed_key`` is its key's hash now, and its record as read."""
        raw = self._redis.get(self.keys(account_id).record)
        if raw is None:
            return None
        record = json.loads(raw)
        if not hmac.compare_digest(hashed_key, record["key_hash"]):
            return None
        return Account(account_id, record["name"]), raw

    def _remember(self, account_id: str, hashed_key: str, account: Account) -> None:
        if len(self._checked) >= _KEPT:
            self._checked.clear()
        self._checked[(account_id, hashed_key)] = (account, self._clock())

    @staticmethod
    def _new_key(account_id: str) -> str:
        return f"{KEY_PREFIX}{account_id}.{secrets.token_urlsafe(32)}"

    def seated(self, account: Account, game_id: str) -> None:
        """Index ``game_id`` among the account's games (before the seat is appended, so
        the index never misses a game; a failed join leaves an entry the listing skips)."""
        self._redis.zadd(self.keys(account.account_id).games, {game_id: time.time_ns() // 1000}, nx=True)

    def games_page(self, account: Account, cursor: int | None, limit: int) -> tuple[list[str], int | None]:
        """Game ids newest first, ``limit`` at most, before ``cursor`` (a join time in µs,
        exclusive); and the next cursor (None on the last page)."""
        top = "+inf" if cursor is None else f"({cursor}"
        rows = self._redis.zrevrangebyscore(
            self.keys(account.account_id).games, top, "-inf", start=0, num=limit + 1, withscores=True
        )
        page = rows[:limit]
        ids = [m.decode() if isinstance(m, bytes) else m for m, _ in page]
        more = len(rows) > limit
        return ids, (int(page[-1][1]) if more and page else None)

    def last_notices(self, account: Account, game_ids: list[str]) -> list[dict[str, Any] | None]:
        """The last notice about each of ``game_ids`` (None: none yet), in order."""
        if not game_ids:
            return []
        raw = self._redis.hmget(self.keys(account.account_id).last, game_ids)
        return [None if r is None else json.loads(r) for r in raw]
