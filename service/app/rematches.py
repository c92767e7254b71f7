"""Rematches: one new game per finished game, which its players find and join.

A seat of a finished game asks for a rematch (``Application.rematch``): the first ask
creates a game like it -- the same game, seats, options, bots at the same seats, clock
and invitation rule, its ``GameCreated`` saying ``rematch_of`` in public -- and takes
the asker's seat in it again; every later ask from another seat of the finished game
takes that seat in the same new game, an invite-only one without its code (holding a
seat of the finished game is the invitation). Anyone may ask which game is the rematch
(``GET /v1/games/{id}/rematch``), so the other players' pages find it.

The link is one Redis string per finished game, ``<p>game:{<id>}:rematch`` = the id of
its rematch, with a TTL of :data:`REMATCH_TTL_S`:

- it is claimed with SET NX *before* the game is created, so of two seats asking at
  once exactly one creates the game and the other joins it;
- a claim whose game never came (its creator failed) is given up by a
  compare-and-delete, by the failed creator at once or by the next asker after
  :data:`CREATION_WAIT_S`, and that asker claims anew.

The link is an index: the truth is the new game's ``GameCreated``. Its keys share the
finished game's hash tag (one slot on a cluster); the archive leaves it to its TTL.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from events.redis_adapter.keys import check_game_id, prefixed
from events.redis_adapter.scripts import Script

REMATCH_TTL_S = 2 * 24 * 3600
"""How long a finished game's rematch stays findable (and so the one rematch): long
after its players have left the page; an ask after that makes a new one."""

CREATION_WAIT_S = 2.0
"""How long an asker waits for the game another asker claimed to appear (a creation
takes milliseconds) before taking the claim for a failed one."""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def rematch_key(prefix: str, game_id: str) -> str:
    """``<p>game:{<id>}:rematch``: the id of the rematch of finished game ``game_id``."""
    return f"{prefixed(prefix, 'game:')}{{{check_game_id(game_id)}}}:rematch"


class Rematches:
    """The finished-game -> rematch links on one Redis. Thread-safe."""

    def __init__(self, client: Any, prefix: str) -> None:
        self._redis = client
        self._prefix = prefix
        self._release = Script(client, _RELEASE)

    def find(self, game_id: str) -> str | None:
        """The id of ``game_id``'s rematch (claimed, possibly still being created), if any."""
        found = self._redis.get(rematch_key(self._prefix, game_id))
        return None if found is None else found.decode() if isinstance(found, bytes) else str(found)

    def claim(self, game_id: str, rematch_id: str) -> str | None:
        """Make ``rematch_id`` ``game_id``'s rematch unless it has one; None if this call
        claimed it (the caller must now create it, or :meth:`release` the claim), else
        the id of the one it has."""
        key = rematch_key(self._prefix, game_id)
        if self._redis.set(key, rematch_id, nx=True, ex=REMATCH_TTL_S):
            return None
        return self.find(game_id) or self.claim(game_id, rematch_id)  # expired meanwhile: again

    def release(self, game_id: str, rematch_id: str) -> None:
        """Give up the claim of ``rematch_id`` (only if it is still ``game_id``'s)."""
        self._release([rematch_key(self._prefix, game_id)], [rematch_id])

    def wait_created(
        self, rematch_id: str, exists: Callable[[str], bool], sleep: Callable[[float], None] = time.sleep
    ) -> bool:
        """Whether the game ``rematch_id`` exists now or within :data:`CREATION_WAIT_S`
        (its creator claimed it a moment ago and is still writing it)."""
        deadline = time.monotonic() + CREATION_WAIT_S
        while not exists(rematch_id):
            if time.monotonic() >= deadline:
                return False
            sleep(0.05)
        return True
