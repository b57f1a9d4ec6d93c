-- Add one member to a follow list and count it, if it is new.
-- KEYS[1] = followers:{uid} or following:{uid}   (ZSET)
-- KEYS[2] = user:{uid}                            (HASH holding the count)
-- KEYS[3] = a note the new edge makes obsolete, from which ARGV[4] is removed:
--           following side: unfollowed:{uid}:other (ZSET, see unfollow.lua);
--           followers side: follow_requests:{uid}  (ZSET: the request is answered)
-- KEYS[4], KEYS[5] = following side only: blocks:{uid}, blocked_by:{uid} (ZSET)
-- ARGV[1] = the other user's id
-- ARGV[2] = now, in milliseconds
-- ARGV[3] = the count field: "followers" or "following"
-- ARGV[4] = with KEYS[3]: the member to remove from it
-- Returns 1 if added, 0 if it was already there (then nothing changes), -1 if a block
-- either way refuses it (KEYS[4], KEYS[5]; then nothing changes either).
--
-- Scores are follow times in ms, made unique per list: a follow in the same
-- millisecond as the newest one gets the next millisecond. Unique scores let
-- pages and fan-out batches resume from a score without skipping or repeating.
if KEYS[4] and (redis.call('ZSCORE', KEYS[4], ARGV[1]) or redis.call('ZSCORE', KEYS[5], ARGV[1])) then
    return -1
end
if KEYS[3] then
    -- Following again: fan-out must no longer skip this user for other's statuses.
    redis.call('ZREM', KEYS[3], ARGV[4])
end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
    return 0
end
local score = tonumber(ARGV[2])
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if newest[2] and tonumber(newest[2]) >= score then
    score = tonumber(newest[2]) + 1
end
redis.call('ZADD', KEYS[1], score, ARGV[1])
redis.call('HINCRBY', KEYS[2], ARGV[3], 1)
return 1
