-- Deliver one status to one follower's home timeline (fan-out).
-- KEYS[1] = home:{uid}        (ZSET)
-- KEYS[2] = following:{uid}   (ZSET)
-- ARGV[1] = the author's id
-- ARGV[2] = the status id (also its score)
-- ARGV[3] = the home timeline's cap
-- Returns 1 if delivered, 0 if the follower no longer follows the author.
-- Delivering twice changes nothing (ZADD of the same member and score).
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
    return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -tonumber(ARGV[3]) - 1)
return 1
