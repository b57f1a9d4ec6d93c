-- Put a new status on its author's profile and home timelines and count it.
-- KEYS[1] = profile:{uid}     (ZSET)
-- KEYS[2] = home:{uid}        (ZSET)
-- KEYS[3] = user:{uid}        (HASH: the "posts" count)
-- ARGV[1] = the status id (also its score)
-- ARGV[2] = the home timeline's cap
-- Returns 1 if added, 0 if it was there already (a retry: nothing is counted twice).
local added = redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1])
if added == 1 then
    redis.call('HINCRBY', KEYS[3], 'posts', 1)
end
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[1])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -tonumber(ARGV[2]) - 1)
return added
