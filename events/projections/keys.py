"""The read models' Redis keys, built in one place (documented in ``events.redis_adapter.keys``).

- per game, with the game's hash tag (same slot as its stream and head):
  ``<p>game:{<id>}:view`` and ``<p>game:{<id>}:summary``;
- the lobby index, all under the hash tag ``{lobby}`` so that one script can move
  a game between statuses atomically: ``<p>lobby:{lobby}:<status>:<type>`` (sorted
  sets; ``all`` in either place = any) and ``<p>lobby:{lobby}:synced``;
- per player name (guests and bots), under the hash tag ``{<name, percent-encoded>}``:
  ``<p>player:{<name>}:totals`` and ``<p>player:{<name>}:counted``; per registered
  player, under ``{acct:<name, percent-encoded>}`` (``:`` never begins an encoded
  name): ``<p>player:{acct:<name>}:totals`` and ``...:counted``;
- ``<p>projector:totals-by-account``: set once the projector has counted the accounts'
  earlier games by account (``events.projections.totals_backfill``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote

from events.redis_adapter.keys import GameKeys, check_game_id, check_prefix

ANY = "all"
"""Stands for "any status" or "any game type" in a lobby key."""


def glob_escape(text: str) -> str:
    """``text`` as a literal inside a SCAN MATCH pattern."""
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


def encode_name(name: str) -> str:
    """A player name made safe for a key and its hash tag: percent-encoded, so no
    braces, glob characters or spaces remain (``Ann`` stays ``Ann``)."""
    return quote(name, safe="")


@dataclass(frozen=True, slots=True)
class ReadModelKeys:
    """Builds every read-model key under ``prefix`` (ValueError for a bad prefix)."""

    prefix: str

    def __post_init__(self) -> None:
        check_prefix(self.prefix)

    def view(self, game_id: str) -> str:
        return f"{self.prefix}game:{{{check_game_id(game_id)}}}:view"

    def summary(self, game_id: str) -> str:
        return f"{self.prefix}game:{{{check_game_id(game_id)}}}:summary"

    def head(self, game_id: str) -> str:
        """The store's head key of ``game_id`` (read by ``scripts.REPLACE_GAME``)."""
        return GameKeys.of(self.prefix, game_id).head

    def lobby(self, status: str | None, game_type: str | None) -> str:
        """The sorted set of games with ``status`` and ``game_type`` (None = any)."""
        return f"{self.prefix}lobby:{{lobby}}:{status or ANY}:{game_type or ANY}"

    @property
    def lobby_synced(self) -> str:
        return f"{self.prefix}lobby:{{lobby}}:synced"

    def player_totals(self, name: str) -> str:
        """The totals of the guests and bots who sat under exactly ``name``."""
        return f"{self.prefix}player:{{{encode_name(name)}}}:totals"

    def player_counted(self, name: str) -> str:
        return f"{self.prefix}player:{{{encode_name(name)}}}:counted"

    def account_totals(self, account: str) -> str:
        """The totals of the registered player ``account`` (its seats only). ``acct:``
        cannot begin an encoded name (``:`` is percent-encoded), so the two families
        never meet; both match :attr:`counted_pattern`."""
        return f"{self.prefix}player:{{acct:{encode_name(account)}}}:totals"

    def account_counted(self, account: str) -> str:
        return f"{self.prefix}player:{{acct:{encode_name(account)}}}:counted"

    @property
    def totals_by_account(self) -> str:
        """Set once every finished game's registered seats were counted by account
        (``events.projections.totals_backfill``). A mark of the projector's, not a read
        model: outside the read models' name space (a rebuild leaves it)."""
        return f"{self.prefix}projector:totals-by-account"

    # SCAN patterns: discovering games, and deleting read models before a rebuild.

    @property
    def heads_pattern(self) -> str:
        return glob_escape(self.prefix) + "game:{*}:head"

    @property
    def views_pattern(self) -> str:
        return glob_escape(self.prefix) + "game:{*}:view"

    @property
    def lobby_pattern(self) -> str:
        return glob_escape(self.prefix) + "lobby:{lobby}:*"

    @property
    def counted_pattern(self) -> str:
        return glob_escape(self.prefix) + "player:{*}:counted"

    def game_of(self, key: bytes | str) -> str:
        """The game id in a per-game key (``<p>game:{<id>}:...``)."""
        text = key.decode() if isinstance(key, bytes) else key
        return text[len(self.prefix) :].partition("{")[2].partition("}")[0]

    def totals_of_counted(self, counted_key: bytes | str) -> str:
        """The totals key beside a player's ``counted`` key."""
        text = counted_key.decode() if isinstance(counted_key, bytes) else counted_key
        return text.removesuffix(":counted") + ":totals"

    def summary_of_view(self, view_key: bytes | str) -> str:
        """The summary key beside a game's ``view`` key."""
        text = view_key.decode() if isinstance(view_key, bytes) else view_key
        return text.removesuffix(":view") + ":summary"
