-- Set one field of a user hash if it is not set, or remove it, while the hash exists.
-- KEYS[1] = user  keys.user(uid) (HASH)
-- ARGV[1] = the field, ARGV[2] = its value, or "" to remove it
-- Returns 1 if the field changed, 0 if not (already so, or no such user).
--
-- A plain HSET on a user whose deletion has just removed the hash would make a hash
-- of that one field: a user with no login. Checking in the same step cannot. A field
-- already set keeps its value (the time of the first suspension, say).
if redis.call('EXISTS', KEYS[1]) == 0 then
    return 0
end
if ARGV[2] == '' then
    return redis.call('HDEL', KEYS[1], ARGV[1])
end
return redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
