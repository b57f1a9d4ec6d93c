-- Free an email address, if it is still the given user's.
-- KEYS[1] = EMAILS  keys.EMAILS (HASH: lowercased address -> user id)
-- ARGV[1] = the lowercased address, ARGV[2] = the user id it should name
-- Returns 1 if removed, 0 if it names nobody or someone else (a retry long after:
-- another account has taken it since).
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then
    return redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0
