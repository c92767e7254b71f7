"""The read models in Redis: loading a game's checkpoint, and every write to them.

Idempotence by construction, per kind of read model:

- per game (view + summary, one slot): :meth:`ReadModels.apply` writes both and
  the checkpoint in one script that first checks the stored checkpoint is the one
  the update was computed from -- a duplicate delivery or a racing projector
  writes nothing, so every event is applied at most once.
- the lobby index (its own slot, ``{lobby}``): :meth:`ReadModels.sync_lobby` sets
  absolute values (ZADD/ZREM + the synced status), refusing to move a game back.
  Only a status change touches it, so that slot sees a few writes per game, not
  one per command.
- player totals (one slot per player): :meth:`ReadModels.count_finished` adds a
  finished game in the same script as it SADDs the game id to the player's
  ``counted`` set, so a game counts once per player however often it is synced.

On a cluster these three live in different slots and cannot share a transaction.
The updater therefore writes them in a fixed order -- game, totals, lobby -- and
treats "lobby synced status < the game's status" as "cross-slot work unfinished":
a crash between the steps is repaired by the next update or reconciliation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.registry import get_game
from engine.table import EXPIRED, FINISHED, OPEN, RUNNING, Seat, Table
from events.projections import model
from events.projections.keys import ReadModelKeys
from events.projections.scripts import APPLY_GAME, COUNT_FINISHED, REPLACE_GAME, SYNC_LOBBY
from events.redis_adapter.scripts import Script
from events.state.codec import StateCodec

STATUSES = (OPEN, RUNNING, FINISHED, EXPIRED)
"""Every status, in the only order a game goes through them (expired comes after
open, or after running for a game nobody played on: never back)."""


def status_rank(status: str) -> int:
    """1 open, 2 running, 3 finished, 4 expired (0 stands for "not in the lobby yet")."""
    return STATUSES.index(status) + 1


@dataclass(frozen=True, slots=True)
class Stored:
    """A game's stored checkpoint (0 = no read model), the table at it (None when
    there is none, or it was written under other rules or cannot be decoded), and
    the rank of the status its lobby entry shows (0 = none)."""

    version: int
    table: Table | None
    lobby_rank: int = 0


class ReadModels:
    """Reads and writes of the read models under one key prefix. Thread-safe."""

    def __init__(self, client: Any, prefix: str, codec: StateCodec | None = None) -> None:
        self.client = client  # also used by the read side (``views``, ``lobby``)
        self.keys = ReadModelKeys(prefix)
        self._codec = codec
        self._apply = Script(client, APPLY_GAME)
        self._replace = Script(client, REPLACE_GAME)
        self._sync_lobby = Script(client, SYNC_LOBBY)
        self._count = Script(client, COUNT_FINISHED)

    def load(self, game_id: str) -> Stored:
        """The checkpoint of ``game_id``'s read model, the table it was built from and
        its lobby status -- one round trip (two slots: a non-transactional pipeline)."""
        fields = (model.CHECKPOINT, model.GAME, model.RULES, model.STATE)
        pipe = self.client.pipeline(transaction=False)
        pipe.hmget(self.keys.view(game_id), *fields)
        pipe.hget(self.keys.lobby_synced, game_id)
        (version, game_type, rules, state), rank = pipe.execute()
        if version is None:
            return Stored(0, None, int(rank or 0))
        table = model.decode_table(_text(game_type), _text(rules), state, self._codec)
        return Stored(int(version), table, int(rank or 0))

    def apply(self, game_id: str, expected: int, record: model.GameRecord) -> bool:
        """Write ``record`` if the stored checkpoint is still ``expected``; False if not
        (then nothing was written)."""
        keys = [self.keys.view(game_id), self.keys.summary(game_id)]
        done, _stored = self._apply(keys, [expected, *_record_args(record)])
        return bool(done)

    def replace(self, game_id: str, record: model.GameRecord) -> bool:
        """Write ``record`` over whatever is stored, unless the stored model is newer and
        consistent with the head (see ``scripts.REPLACE_GAME``); True if written."""
        keys = [self.keys.view(game_id), self.keys.summary(game_id), self.keys.head(game_id)]
        return bool(self._replace(keys, [record.version, *_record_args(record)]))

    def sync_lobby(self, game_id: str, table: Table) -> bool:
        """Put ``game_id`` into exactly the lobby sets of its status and type; False if
        the index already shows a later status (nothing changed then)."""
        k = self.keys
        inside = [k.lobby(s, t) for s in (table.status, None) for t in (table.game, None)]
        outside = [k.lobby(s, t) for s in STATUSES if s != table.status for t in (table.game, None)]
        rank = status_rank(table.status)
        args = [game_id, rank, model.created_us(table.created), len(inside)]
        return bool(self._sync_lobby([k.lobby_synced, *inside, *outside], args))

    def count_finished(self, game_id: str, table: Table) -> int:
        """Add a finished game to the totals of every player at its table (once per
        player and game; a player at two seats counts with its first seat). A seat
        taken by a registered player counts for its account, any other (a guest, a bot)
        for its name: a guest who sat under a name before it was registered -- or to
        pad it -- adds nothing to the account's totals. Returns how many players it was
        newly counted for; 0 for a game still running."""
        result = get_game(table.game).result(table.state) if table.status == FINISHED else None
        if result is None:
            return 0
        counted, seen = 0, set()
        for seat, sitter in enumerate(table.seats):
            keys = self._totals_keys(sitter)
            if keys is None or keys[1] in seen:
                continue
            seen.add(keys[1])
            won = 1 if seat in result.winners else 0
            counted += self._count(keys, [game_id, won, result.scores[seat]])
        return counted

    def _totals_keys(self, sitter: Seat) -> list[str] | None:
        """``[counted, totals]`` of the player at a seat (None for a free seat)."""
        k = self.keys
        if sitter.account:
            return [k.account_counted(sitter.account), k.account_totals(sitter.account)]
        if sitter.name is None:
            return None
        return [k.player_counted(sitter.name), k.player_totals(sitter.name)]

    def delete_all(self) -> int:
        """Delete every read model under the prefix (not the game streams, not the
        feed); returns how many keys. Keys that belong together go in one DEL, so a
        projector writing meanwhile never leaves half a pair behind."""
        k, deleted = self.keys, 0
        for view in list(self.client.scan_iter(match=k.views_pattern, count=1000)):
            deleted += self.client.delete(view, k.summary_of_view(view))
        for counted in list(self.client.scan_iter(match=k.counted_pattern, count=1000)):
            deleted += self.client.delete(counted, k.totals_of_counted(counted))
        lobby = list(self.client.scan_iter(match=k.lobby_pattern, count=1000))
        if lobby:
            deleted += self.client.delete(*lobby)
        return deleted


def _record_args(record: model.GameRecord) -> list[Any]:
    """ARGV[2..] of the game scripts: n, the view pairs, the summary pairs."""
    args: list[Any] = [len(record.view)]
    for fields in (record.view, record.summary):
        for name, value in fields.items():
            args += [name, value]
    return args


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value
