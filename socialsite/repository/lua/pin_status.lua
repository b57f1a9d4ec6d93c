-- Pin a status to its author's profile (pins.py), at most ARGV[3] of them.
-- KEYS[1] = pinned  keys.pinned(uid) (ZSET: status ids scored by when pinned, ms)
-- ARGV[1] = the status id, ARGV[2] = now, in ms, ARGV[3] = the most pinned at once
-- Returns 1 if pinned, 0 if it was already, -1 if ARGV[3] are pinned already.
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
    return 0
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
    return -1
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
