-- Put a new status on its author's profile and home timelines and count it.
-- KEYS[1] = profile:{s}:uid   (ZSET)
-- KEYS[2] = home:{s}:uid      (SET)
-- KEYS[3] = user:{s}:uid      (HASH: the "posts" count)
-- ARGV[1] = the status id (also its score in the profile)
-- ARGV[2] = the home timeline's cap, ARGV[3] = its slack
-- Returns 1 if added, 0 if it was there already (a retry: nothing is counted twice).
local added = redis.call('ZADD', KEYS[1], ARGV[1], ARGV[1])
if added == 1 then
    redis.call('HINCRBY', KEYS[3], 'posts', 1)
end
redis.call('SADD', KEYS[2], ARGV[1])
trim_home(KEYS[2], tonumber(ARGV[2]), tonumber(ARGV[3]))
return added
