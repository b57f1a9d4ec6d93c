-- Like a status: add the liker to its likes and count it, if the status exists.
-- KEYS[1] = status:<sid>            (HASH: must exist)
-- KEYS[2] = {status:<sid>}:likes    (ZSET: liker ids scored by time in ms)
-- KEYS[3] = {status:<sid>}:counts   (HASH: likes, reposts)
-- ARGV[1] = the liker's id, ARGV[2] = now, in ms
-- Returns 1 if liked; 0 if it was already (a retry, a second click: nothing changes);
-- -1 if the status is gone (deleted meanwhile: nothing is written, so a like racing a
-- delete cannot leave a list or a count behind it).
--
-- The three keys share the status's slot (keys.likes), so the check, the list and the
-- count are one step: the count is the list's size under any concurrency. Scores are
-- made unique per list (a like in the same ms as the newest gets the next ms), so that
-- pages of likers resume from a score without skipping or repeating.
if redis.call('EXISTS', KEYS[1]) == 0 then
    return -1
end
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
    return 0
end
local score = tonumber(ARGV[2])
local newest = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
if newest[2] and tonumber(newest[2]) >= score then
    score = tonumber(newest[2]) + 1
end
redis.call('ZADD', KEYS[2], score, ARGV[1])
redis.call('HINCRBY', KEYS[3], 'likes', 1)
return 1
