-- Count or uncount one user's repost of a status, in the status's slot.
-- KEYS[1] = status:<sid>            (HASH: must exist to count)
-- KEYS[2] = {status:<sid>}:reposts  (ZSET: reposter -> ms)
-- KEYS[3] = {status:<sid>}:counts   (HASH: the "reposts" count)
-- ARGV[1] = the reposter, ARGV[2] = now in ms, ARGV[3] = "add" or "remove"
-- Returns 1 if counted (or uncounted), 0 if it was already, -1 if the status is gone
-- (nothing counted: a deleted status takes no reposts). The list and the count change
-- together, so the count is exact under concurrent reposts, undos and retries.
if ARGV[3] == 'add' then
    if redis.call('EXISTS', KEYS[1]) == 0 then
        return -1
    end
    if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
        return 0
    end
    -- Unique scores (as follow scores), so that /@login/<id>/reposts/ pages by score.
    local score = tonumber(ARGV[2])
    local newest = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
    if newest[2] and tonumber(newest[2]) >= score then
        score = tonumber(newest[2]) + 1
    end
    if redis.call('ZADD', KEYS[2], 'NX', score, ARGV[1]) == 1 then
        redis.call('HINCRBY', KEYS[3], 'reposts', 1)
        return 1
    end
    return 0
end
if redis.call('ZREM', KEYS[2], ARGV[1]) == 1 then
    if redis.call('EXISTS', KEYS[1]) == 1 then
        redis.call('HINCRBY', KEYS[3], 'reposts', -1)
    end
    return 1
end
return 0
