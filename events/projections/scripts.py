"""The read models' Lua scripts, one job each (registered with
``events.redis_adapter.scripts.Script``).

Every key a script touches is in KEYS and all of them share one hash tag, so each
script runs unchanged on Redis Cluster. Each validates before its first write
(scripts do not roll back).
"""

from __future__ import annotations

APPLY_GAME = """
-- Write a game's read model and its checkpoint, unless someone moved the checkpoint.
-- KEYS[1] = view hash     <p>game:{id}:view     (v = checkpoint, views, scores, state...)
-- KEYS[2] = summary hash  <p>game:{id}:summary  (the lobby's per-game summary)
-- ARGV[1] = the checkpoint the update was computed from ("0" = no read model yet)
-- ARGV[2] = n, the number of view field/value pairs that follow
-- ARGV[3 .. 2+2n] = view fields and values (they include v = the new checkpoint)
-- ARGV[3+2n ..]   = summary fields and values
-- Every field is written every time, so no stale field can survive an update.
-- Returns {1, new checkpoint} if written, or {0, stored checkpoint} if the stored
-- checkpoint is not ARGV[1] (a duplicate delivery or a concurrent projector got
-- there first): nothing is written then, so no event is ever applied twice.
local stored = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if stored ~= tonumber(ARGV[1]) then
  return {0, stored}
end
local split = 2 + 2 * tonumber(ARGV[2])
redis.call('HSET', KEYS[1], unpack(ARGV, 3, split))
redis.call('HSET', KEYS[2], unpack(ARGV, split + 1, #ARGV))
return {1, tonumber(redis.call('HGET', KEYS[1], 'v'))}
"""

REPLACE_GAME = """
-- Replace a game's read model with one rebuilt from its whole history.
-- KEYS[1] = view hash     <p>game:{id}:view
-- KEYS[2] = summary hash  <p>game:{id}:summary
-- KEYS[3] = head hash     <p>game:{id}:head (the store's; v = the stored version)
-- ARGV[1] = the version the rebuilt model is at
-- ARGV[2 ..] as ARGV[2 ..] of APPLY_GAME
-- Keeps a stored model that is newer than the rebuilt one and not past the head
-- (a live projector got further meanwhile); anything else is deleted and rewritten,
-- so a damaged model is repaired. Returns 1 if written, 0 if the stored one was kept.
local stored = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
local head = tonumber(redis.call('HGET', KEYS[3], 'v') or '0')
if stored > tonumber(ARGV[1]) and stored <= head then
  return 0
end
redis.call('DEL', KEYS[1], KEYS[2])
local split = 2 + 2 * tonumber(ARGV[2])
redis.call('HSET', KEYS[1], unpack(ARGV, 3, split))
redis.call('HSET', KEYS[2], unpack(ARGV, split + 1, #ARGV))
return 1
"""

SYNC_LOBBY = """
-- Put a game into exactly the lobby sets of its current status and type.
-- KEYS[1] = synced hash <p>lobby:{lobby}:synced (game id -> rank of the status the
--           sets show: 1 open, 2 running, 3 finished)
-- KEYS[2 .. 1+n] = the sorted sets the game belongs in  <p>lobby:{lobby}:<status>:<type>
-- KEYS[2+n ..]   = the sorted sets it must not be in
-- ARGV[1] = game id, ARGV[2] = rank of its status, ARGV[3] = score (creation time
-- in microseconds), ARGV[4] = n
-- Absolute values only, so running it again is harmless. A status only ever moves
-- forward, so a lower rank than the one synced is refused: a slow projector cannot
-- move a game back. Returns 1 if synced, 0 if refused.
local synced = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if synced > tonumber(ARGV[2]) then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local n = tonumber(ARGV[4])
for i = 2, #KEYS do
  if i <= 1 + n then
    redis.call('ZADD', KEYS[i], ARGV[3], ARGV[1])
  else
    redis.call('ZREM', KEYS[i], ARGV[1])
  end
end
return 1
"""

COUNT_FINISHED = """
-- Add one finished game to a player's totals -- once, however often it is sent.
-- KEYS[1] = counted set <p>player:{name}:counted (ids of the games already counted)
-- KEYS[2] = totals hash <p>player:{name}:totals  (games, wins, points)
-- ARGV[1] = game id, ARGV[2] = 1 if the player won (or shared the win) else 0,
-- ARGV[3] = the player's final score
-- Returns 1 if counted now, 0 if the game had been counted before.
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('HINCRBY', KEYS[2], 'games', 1)
redis.call('HINCRBY', KEYS[2], 'wins', ARGV[2])
redis.call('HINCRBY', KEYS[2], 'points', ARGV[3])
return 1
"""
