-- Remove one member from a follow list and uncount it, if it was there; and withdraw
-- the member's request to follow, if there is one.
-- KEYS[1] = followers        keys.followers(followed) (ZSET)
-- KEYS[2] = user             keys.user(followed) (HASH holding the count)
-- KEYS[3] = follow_requests  keys.follow_requests(followed) (ZSET)
-- ARGV[1] = the other user's id
-- ARGV[2] = the count field: "followers"
-- Returns {1 if removed from the list else 0, 1 if a request was withdrawn else 0}.
local withdrawn = 0
if KEYS[3] then withdrawn = redis.call('ZREM', KEYS[3], ARGV[1]) end
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
    redis.call('HINCRBY', KEYS[2], ARGV[2], -1)
    return {1, withdrawn}
end
return {0, withdrawn}
