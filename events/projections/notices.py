"""The player stream's notices: what a registered player must know about its games.

For every game a registered player sits in, the projector appends a *notice* to the
account's stream (``<p>account:{<id>}:notices``, see ``events.accounts.keys``) when
that seat's situation changes: the seat was taken (``seated``), play began
(``started``), it is the seat's turn (``your_turn``, again at every new version
where it must act), it must wait (``waiting``), the game ended (``ended``) or
expired (``expired``), or the account gave its seat up before the start (``left``:
the game leaves the account's list of games too); and, for a rematch of a finished game
it played, its seat there is offered (``rematch``, with ``rematch_of``; the rematch
joins the account's list only once the seat is taken). A notice is JSON::

    {"game_id", "game", "seat", "version", "status", "to_move", "kinds",
     "deadline", "result"}            (+ "rematch_of" in a ``rematch`` notice)

Why the projector writes them, not the command path: the projector already reads
every event of every game once, resumes from its checkpoint after a crash, and runs
off the command path -- so notices cost a command nothing (no extra round trip),
and a notice lost to a crash between the read-model write and the notice is
written by the next update of that game (the feed entry is acknowledged only after
both; see ``Updater``). The price is the projector's lag (milliseconds; measured in
``bench/player_stream_bench.py``).

Exactly once per state: :data:`NOTICE` (one script, the account's slot) compares
the game's last noticed version and signature (status, to-move, kinds) with the new
ones and appends only a newer, different state -- a redelivery, a racing projector
or a rebuild writes nothing twice.

Nothing hidden: a notice holds only what the seat's own view shows (and the
spectator's too): the game id and type, the version, the seat, its status, whether
it is to act and with which command kinds (the public ``to_act``), the public
deadline (turn clocks) and, after the end, the public result. No card, no hand, no
private event part.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine.model import JSON
from engine.registry import get_game
from engine.table import EXPIRED, FINISHED, OPEN, RUNNING, Table
from events.accounts.keys import NOTICES_KEPT, AccountKeys
from events.accounts.names import name_key
from events.redis_adapter.scripts import Script

NOTICE = """
-- KEYS[1] = the account's ``last`` hash, KEYS[2] = its notices stream,
-- KEYS[3] = its games index
-- ARGV[1] = game id, ARGV[2] = version, ARGV[3] = signature (status|to_move|kinds),
-- ARGV[4] = 1 if the seat is to move, ARGV[5] = MAXLEN, ARGV[6] = the notice JSON,
-- ARGV[7] = 1 if the account left the game (it leaves the games index too)
-- Appends the notice unless the game's last notice is as new or newer, or shows the
-- same signature while the seat is not to move. Entry ids are ``<n>-0`` with n =
-- 1, 2, 3 ... per account (field ``:seq`` of the ``last`` hash; no game id holds a
-- colon), so a client resumes after a plain number and any gap means trimming.
-- Returns n, or false.
local version = tonumber(ARGV[2])
if not version then return redis.error_reply('bad version') end
local meta = redis.call('HGET', KEYS[1], ARGV[1] .. ':m')
if meta then
  local space = string.find(meta, ' ', 1, true)
  local last = tonumber(string.sub(meta, 1, space - 1))
  if last >= version then return false end
  if string.sub(meta, space + 1) == ARGV[3] and ARGV[4] ~= '1' then return false end
end
local n = redis.call('HINCRBY', KEYS[1], ':seq', 1)
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], n .. '-0', 'n', ARGV[6])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[6], ARGV[1] .. ':m', ARGV[2] .. ' ' .. ARGV[3])
if ARGV[7] == '1' then redis.call('ZREM', KEYS[3], ARGV[1]) end
return n
"""


LEFT = "left"
"""The kind of a notice about a seat the account gave up before the start."""

REMATCH = "rematch"
"""The kind of a notice offering the account its seat again, in the rematch of a
finished game it played (``service.app.rematches``); its ``game_id`` is the rematch's,
``rematch_of`` the finished game's."""


@dataclass(frozen=True, slots=True)
class Notice:
    """One notice for one account's seat (see the module docstring)."""

    account: str
    kind: str
    document: JSON

    @property
    def signature(self) -> str:
        d = self.document
        tag = f"|{self.kind}" if self.kind in (LEFT, REMATCH) else ""
        return f"{d['status']}|{int(d['to_move'])}|{','.join(d['kinds'])}{tag}"


def notices(game_id: str, before: Table | None, after: Table) -> list[Notice]:
    """The notices ``after`` calls for, one per seat a registered player holds (whether
    each is new is the script's business). ``before``: the table the update started
    from (None: unknown), only to tell ``started`` from a later turn."""
    game = get_game(after.game)
    running = after.status == RUNNING and after.state is not None
    to_act = game.to_act(after.state) if running else {}
    result = game.result(after.state) if after.status == FINISHED and after.state is not None else None
    out = []
    for seat, sitter in enumerate(after.seats):
        if sitter.account is None:
            continue
        kinds = list(to_act.get(seat, ()))
        document: JSON = {
            "game_id": game_id,
            "game": after.game,
            "seat": seat,
            "version": after.version,
            "status": after.status,
            "to_move": bool(kinds),
            "kinds": kinds,
            "deadline": _deadline(after, seat) if kinds else None,
            "result": None if result is None else result.to_json(),
        }
        out.append(Notice(sitter.account, _kind(before, after, bool(kinds)), document))
    if before is not None and after.status == OPEN:
        # Seats left before the start: tell the account (and drop the game from its list).
        for seat, sitter in enumerate(before.seats):
            if sitter.account is not None and after.seats[seat].account != sitter.account:
                document = {
                    "game_id": game_id, "game": after.game, "seat": seat, "version": after.version,
                    "status": after.status, "to_move": False, "kinds": [], "deadline": None, "result": None,
                }
                out.append(Notice(sitter.account, LEFT, document))
    return out


def rematch_offers(game_id: str, rematch: Table, finished: Table) -> list[Notice]:
    """While the rematch ``game_id`` waits for players, one ``rematch`` notice per seat
    of the ``finished`` game it repeats that a registered player held and has not taken
    again yet: the seat it may take back (``POST /v1/games/{finished}/rematch``)."""
    if rematch.status != OPEN or rematch.rematch_of is None:
        return []
    out = []
    for seat, sitter in enumerate(finished.seats):
        if sitter.account is None or seat >= len(rematch.seats) or rematch.seats[seat].account == sitter.account:
            continue
        document: JSON = {
            "game_id": game_id, "game": rematch.game, "seat": seat, "version": rematch.version,
            "status": rematch.status, "to_move": False, "kinds": [], "deadline": None, "result": None,
            "rematch_of": rematch.rematch_of,
        }
        out.append(Notice(sitter.account, REMATCH, document))
    return out


def _kind(before: Table | None, after: Table, to_move: bool) -> str:
    if after.status == OPEN:
        return "seated"
    if after.status == FINISHED:
        return "ended"
    if after.status == EXPIRED:
        return "expired"
    if before is None or before.status == OPEN:
        return "started"
    return "your_turn" if to_move else "waiting"


def _deadline(table: Table, seat: int) -> JSON | None:
    """The seat's deadline as views show it (turn clocks: ``{"at", "at_ms"}``), None
    without a clock. Read from the table's clock when the table has one."""
    clock = getattr(table, "clock", None)
    deadline_ms = getattr(clock, "deadline_ms", None) if clock is not None else None
    if deadline_ms is None:
        return None
    at_ms = deadline_ms(seat)
    if at_ms is None:
        return None
    from datetime import UTC, datetime  # only clocked games get here

    at = datetime.fromtimestamp(at_ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    return {"at": at, "at_ms": at_ms}


class NoticeWriter:
    """Appends notices to the accounts' streams. Thread-safe; one per projector."""

    def __init__(self, client: Any, prefix: str, kept: int = NOTICES_KEPT) -> None:
        self._prefix = prefix
        self._kept = kept
        self._script = Script(client, NOTICE)
        self._ids: dict[str, str] = {}

    def _account_id(self, name: str) -> str:
        account_id = self._ids.get(name)
        if account_id is None:
            if len(self._ids) > 100_000:
                self._ids.clear()
            account_id = self._ids[name] = name_key(name)
        return account_id

    def write(self, game_id: str, before: Table | None, after: Table | None, finished: Table | None = None) -> int:
        """Append the notices ``after`` calls for that are new; returns how many. A table
        without registered players costs nothing (no round trip). ``finished``: the game
        ``after`` is the rematch of, whose registered players are offered their seats
        (:func:`rematch_offers`)."""
        seats = (*(before.seats if before is not None else ()), *(after.seats if after is not None else ()),
                 *(finished.seats if finished is not None else ()))
        if after is None or all(s.account is None for s in seats):
            return 0
        offers = rematch_offers(game_id, after, finished) if finished is not None else []
        written = 0
        for notice in [*notices(game_id, before, after), *offers]:
            keys = AccountKeys.of(self._prefix, self._account_id(notice.account))
            text = json.dumps({"kind": notice.kind, **notice.document}, separators=(",", ":"))
            args = [game_id, notice.document["version"], notice.signature,
                    "1" if notice.document["to_move"] else "0", self._kept, text]
            args.append("1" if notice.kind == LEFT else "0")
            if self._script([keys.last, keys.notices, keys.games], args):
                written += 1
        return written
