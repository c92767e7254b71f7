"""The ratings' Lua scripts (one job each). Every key of one game type's ratings shares
the hash tag ``{ratings.<game>}``: each script runs unchanged on Redis Cluster.

``gen`` is the ratings' write counter: every script that changes what a rater reads
increments it, and a rater's write is refused unless ``gen`` is still the value the
rater read before it read anything else (optimistic concurrency). ``gen`` is never
deleted, not even by a reset: a counter that went back to an old value could let a
stale rater's write through (ABA).
"""

from __future__ import annotations

SUBMIT = """
-- Queue one finished game for rating -- once, however often it is submitted.
-- KEYS[1] = gen string     KEYS[2] = pending zset   KEYS[3] = done zset
-- KEYS[4] = outcome hash (game id -> rated outcome JSON)
-- ARGV[1] = game id, ARGV[2] = sort score (GameEnded time in microseconds),
-- ARGV[3] = the rated outcome JSON
-- Returns 1 if queued now, 0 if the game was queued or rated before.
if redis.call('ZSCORE', KEYS[2], ARGV[1]) or redis.call('ZSCORE', KEYS[3], ARGV[1]) then
  return 0
end
redis.call('HSET', KEYS[4], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('INCR', KEYS[1])
return 1
"""

WRITE = """
-- Write one rating step, unless anything changed since the rater read gen.
-- KEYS[1] = gen, KEYS[2] = pending zset, KEYS[3] = done zset, KEYS[4] = record hash,
-- KEYS[5] = rating hash, KEYS[6] = board zset, KEYS[7..] = played zsets (per identity)
-- ARGV[1] = the gen the step was computed at
-- ARGV[2] = JSON {rated: [[game, score, record JSON, [played key numbers]]...],
--                 undone: [[game, score]...], set: [[identity, rating JSON, ordinal]...],
--                 unset: [identity...]} -- every scalar a string (exact scores)
-- rated games move pending -> done with their record (and into each player's played
-- set); undone games move done -> pending and lose their record (rated out of order:
-- an earlier game arrived late); set/unset are the identities' ratings afterwards.
-- Returns 1 if written (gen + 1), 0 if gen moved (nothing written).
if tonumber(redis.call('GET', KEYS[1]) or '0') ~= tonumber(ARGV[1]) then
  return 0
end
local step = cjson.decode(ARGV[2])
for _, g in ipairs(step.rated) do
  redis.call('ZREM', KEYS[2], g[1])
  redis.call('ZADD', KEYS[3], g[2], g[1])
  redis.call('HSET', KEYS[4], g[1], g[3])
  for _, k in ipairs(g[4]) do
    redis.call('ZADD', KEYS[6 + tonumber(k)], g[2], g[1])
  end
end
for _, g in ipairs(step.undone) do
  redis.call('ZREM', KEYS[3], g[1])
  redis.call('HDEL', KEYS[4], g[1])
  redis.call('ZADD', KEYS[2], g[2], g[1])
end
for _, r in ipairs(step.set) do
  redis.call('HSET', KEYS[5], r[1], r[2])
  redis.call('ZADD', KEYS[6], r[3], r[1])
end
for _, ident in ipairs(step.unset) do
  redis.call('HDEL', KEYS[5], ident)
  redis.call('ZREM', KEYS[6], ident)
end
redis.call('INCR', KEYS[1])
return 1
"""

RESET = """
-- Forget every rating of one game type (before a full rebuild); gen goes on counting.
-- KEYS[1] = gen, KEYS[2..] = pending, done, outcome, record, rating, board
redis.call('DEL', unpack(KEYS, 2, #KEYS))
return redis.call('INCR', KEYS[1])
"""
