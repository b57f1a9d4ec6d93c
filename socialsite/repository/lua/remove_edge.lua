-- Remove one member from a follow list and uncount it, if it was there.
-- KEYS[1] = followers:{uid}                       (ZSET)
-- KEYS[2] = user:{uid}                            (HASH holding the count)
-- ARGV[1] = the other user's id
-- ARGV[2] = the count field: "followers"
-- Returns 1 if removed, 0 if it was not there.
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
    redis.call('HINCRBY', KEYS[2], ARGV[2], -1)
    return 1
end
return 0
